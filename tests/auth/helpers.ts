/**
 * Setup of the /svc/auth suites: one real PostgreSQL per file, a fresh migrated database with the
 * PostgREST-compatible RPC endpoint, the fake GoTrue admin endpoint in front of it (one
 * CLIENT_BACKEND_URL for both), the sandbox upstream (workspace A as SVC_WORKSPACE_ID, its bot
 * limit raised), and a gate-on gateway with a service-role key on the host under test.
 *
 * Every answer read through `api` is kept, so a suite can check at its end that no token, key
 * or recovery link ever appeared in one.
 */
import assert from 'node:assert/strict';
import {
  defaultSwitches,
  type Sandbox,
  SANDBOX_TOKEN,
  startSandbox,
  WORLD_IDS,
} from '../../scripts/sandbox/mod.ts';
import type { Env } from '../../mod.ts';
import { type Backend, startBackend } from '../fixtures/db/backend.ts';
import { type PostgresCluster, startPostgres } from '../fixtures/db/postgres.ts';
import { type AuthFront, startAuthFront } from '../fixtures/gotrue_admin.ts';
import { assertSecurityHeaders } from '../helpers/assertions.ts';
import { type Gateway, type HostKind, HOSTS, startGateway } from '../helpers/gateway.ts';

/** The PUBLIC_URL of the suites (recovery links redirect there). */
export const PUBLIC_URL = 'https://app.example.test';

/** A signed-in account. */
export interface Account {
  id: string;
  email: string;
  jwt: string;
}

/** A parsed answer: status, headers, text, JSON (or null). */
export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  // deno-lint-ignore no-explicit-any
  json: any;
}

/** What an auth test receives. */
export interface AuthSetup {
  kind: HostKind;
  sandbox: Sandbox;
  backend: Backend;
  front: AuthFront;
  gateway: Gateway;
  /** Every answer text read through `api` (and `apiOn`). */
  answers: string[];
  /** Creates an auth.users row and mints its session token (issuer = the front). */
  signUp(email: string): Promise<Account>;
  /** Calls `<gateway>/svc/auth<path>` (or `gateway` given) with the account's bearer. */
  api(
    method: string,
    path: string,
    who?: Account | null,
    body?: unknown,
    gateway?: Gateway,
    headers?: Record<string, string>,
  ): Promise<Reply>;
  /** Starts another gateway on the same host kind with `env` over the suite's environment. */
  otherGateway(env: Env): Promise<Gateway>;
  /** Puts the sandbox switches back to their defaults (the world is kept). */
  clearSwitches(): void;
  /** SQL as the superuser. */
  // deno-lint-ignore no-explicit-any
  sql(text: string, params?: unknown[]): Promise<any[]>;
  /** Asserts that no answer so far carried the master token, a key, or a recovery link. */
  assertNoSecretInAnswers(): void;
}

/** The suite's gateway environment. */
export function authEnv(sandbox: Sandbox, backend: Backend, front: AuthFront): Env {
  return {
    SVC_TOKEN: SANDBOX_TOKEN,
    SVC_API_BASE: sandbox.url,
    CLIENT_BACKEND_URL: front.url,
    CLIENT_BACKEND_ANON_KEY: backend.rest.anonKey,
    BACKEND_SERVICE_ROLE_KEY: backend.rest.serviceRoleKey,
    SVC_WORKSPACE_ID: WORLD_IDS.workspaceA,
    AUTH_RECOVERY_LINK_LOG: '1',
    PUBLIC_URL,
  };
}

async function call(
  answers: string[],
  url: string,
  method: string,
  path: string,
  who: Account | null | undefined,
  body: unknown,
  extra: Record<string, string> = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...extra };
  if (who) headers.authorization = `Bearer ${who.jwt}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${url}/svc/auth${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  answers.push(text);
  let json = null;
  try {
    json = text === '' ? null : JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** One named step of an auth suite, on the suite's setup. */
export type AuthStep = [string, (s: AuthSetup, t: Deno.TestContext) => Promise<void> | void];

/**
 * One test per host, `${title} (${kind} host)`, running `steps` in order as named steps on one
 * setup ({@link withAuth}) and a database of its own, stopped after.
 */
export function authStepsOnEachHost(title: string, steps: readonly AuthStep[]): void {
  for (const kind of HOSTS) {
    Deno.test(`${title} (${kind} host)`, async (t) => {
      const cluster = await startPostgres();
      try {
        await withAuth(cluster, kind, async (s) => {
          for (const [name, step] of steps) await t.step(name, (t) => step(s, t));
        });
      } finally {
        await cluster.stop();
      }
    });
  }
}

/** Runs `body` with a fresh setup on `kind` (database on `cluster`); stops everything after. */
export async function withAuth(
  cluster: PostgresCluster,
  kind: HostKind,
  body: (s: AuthSetup) => Promise<void>,
): Promise<void> {
  const backend = await startBackend(cluster);
  const front = await startAuthFront(backend);
  const sandbox = await startSandbox();
  sandbox.world.workspace(WORLD_IDS.workspaceA)!.botsLimit = 1000;
  const env = authEnv(sandbox, backend, front);
  const answers: string[] = [];
  const others: Gateway[] = [];
  let gateway: Gateway | null = null;
  try {
    gateway = await startGateway(kind, {}, env);
    const main = gateway;
    const setup: AuthSetup = {
      kind,
      sandbox,
      backend,
      front,
      gateway: main,
      answers,
      async signUp(email) {
        const id = await backend.seed.createUser(email);
        const jwt = await backend.rest.mintUserToken(id, { issuer: front.issuer });
        return { id, email, jwt };
      },
      api: (method, path, who, payload, other, extra) =>
        call(answers, (other ?? main).url, method, path, who, payload, extra),
      async otherGateway(extra) {
        const started = await startGateway(kind, {}, { ...env, ...extra });
        others.push(started);
        return started;
      },
      clearSwitches() {
        sandbox.switches = defaultSwitches();
      },
      async sql(text: string, params?: unknown[]) {
        return (await backend.seed.query(text, params)).rows;
      },
      assertNoSecretInAnswers() {
        const secrets = [
          SANDBOX_TOKEN,
          backend.rest.serviceRoleKey,
          backend.rest.jwtSecret,
          ...front.links,
          ...front.links.map((l) => new URL(l).searchParams.get('token')!),
        ];
        for (const text of answers) {
          for (const secret of secrets) {
            assert.ok(!text.includes(secret), `a secret appeared in an answer: ${text}`);
          }
        }
      },
    };
    await body(setup);
  } finally {
    for (const other of others) await other.stop();
    await gateway?.stop();
    await sandbox.close();
    await front.stop();
    await backend.stop();
  }
}

/** The envelope's code and status of a refusal reply. */
export function assertCode(reply: Reply, status: number, code: string): string {
  assert.equal(reply.status, status, `status for ${code}: ${reply.text}`);
  assert.equal(reply.json?.errors?.[0]?.extensions?.code, code, reply.text);
  assert.equal(reply.headers.get('cache-control'), 'no-store');
  assertSecurityHeaders({ headers: reply.headers } as Response);
  return reply.json.errors[0].message;
}

/** What reached the sandbox since `from` (indexes into `received`), by operation name. */
export function upstreamOps(sandbox: Sandbox, from = 0): string[] {
  return sandbox.received.slice(from).map((r) => r.search.replace('?op=', ''));
}
