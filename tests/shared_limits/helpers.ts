/**
 * Several real gateway processes on one backend (docs/operations.md "Limits across processes"): the
 * Deno host in this process and Node hosts as child processes (the built npm package: `deno task
 * build:npm` first), all gate-on with the service-role key over one PostgreSQL and one sandbox
 * upstream. A Node gateway can be killed (SIGKILL: no goodbye to the backend).
 */
import assert from 'node:assert/strict';
import { type Sandbox, startSandbox } from '../../scripts/sandbox/mod.ts';
import { startChildProcess } from '../../scripts/host_process.ts';
import type { Env } from '../../mod.ts';
import { type Backend, startBackend } from '../fixtures/db/backend.ts';
import type { PostgresCluster } from '../fixtures/db/postgres.ts';
import { postGraphql } from '../helpers/assertions.ts';
import { type GatewayKind, startGateway, type TestOptions } from '../helpers/gateway.ts';
import { sandboxEnv } from '../helpers/setup.ts';
import { type Accounts, gateEnv, seedAccounts } from '../gate/helpers.ts';

/** One gateway process of the deployment. */
export interface Member {
  kind: GatewayKind;
  url: string;
  /** Its log and startup lines so far. */
  lines: string[];
  /** SIGKILL (Node children only), then waits for the exit. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** The deployment under test. */
export interface Deployment {
  backend: Backend;
  sandbox: Sandbox;
  users: Accounts;
  gateways: Member[];
  /** Calls of a database function that reached the backend so far. */
  calls(fn: string): number;
  stop(): Promise<void>;
}

const CHILD = new URL('../node/gateway_child.mjs', import.meta.url).pathname;

async function startNodeMember(options: TestOptions, env: Env): Promise<Member> {
  const child = await startChildProcess({
    command: ['node', CHILD],
    env: { SVC_TEST_CONFIG: JSON.stringify({ options: { loopbackOnly: true, ...options }, env }) },
    ready: /^LISTENING (\S+)/,
  });
  return {
    kind: 'node',
    url: child.url,
    lines: child.lines,
    async kill() {
      try {
        Deno.kill(child.pid, 'SIGKILL');
      } catch { /* gone already */ }
      await child.stop();
    },
    stop: () => child.stop(),
  };
}

/**
 * A seeded backend, the sandbox, and one Deno plus `nodes` Node gateways (gate on, shared
 * limits on: the service-role key is set), each with `env` over the gate-on environment.
 */
export async function startDeployment(
  cluster: PostgresCluster,
  nodes: number,
  setup: { env?: Env; options?: TestOptions } = {},
): Promise<Deployment> {
  const backend = await startBackend(cluster);
  const sandbox = await startSandbox();
  const gateways: Member[] = [];
  const stop = async () => {
    await Promise.all(gateways.map((g) => g.stop()));
    await sandbox.close();
    await backend.stop();
  };
  try {
    const users = await seedAccounts(backend);
    const env = sandboxEnv(sandbox, { ...gateEnv(backend), ...setup.env });
    const deno = await startGateway('deno', setup.options ?? {}, env);
    gateways.push({ ...deno, kill: () => deno.stop() });
    for (let i = 0; i < nodes; i++) gateways.push(await startNodeMember(setup.options ?? {}, env));
    return {
      backend,
      sandbox,
      users,
      gateways,
      calls: (fn) => backend.rest.calls.get(fn) ?? 0,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** How a burst of requests was answered. */
export interface Tally {
  admitted: number;
  /** 429 TenantBusy with retry-after: 5. */
  busy: number;
  /** Anything else ("status code" → count). */
  other: Record<string, number>;
}

/**
 * Sends `total` POSTs of `body` with `headers`, round-robin over `urls`, `concurrency` at a
 * time; tallies the answers (every body read).
 */
export async function burst(
  urls: string[],
  total: number,
  body: unknown,
  headers: Record<string, string>,
  concurrency = 24,
): Promise<Tally> {
  const tally: Tally = { admitted: 0, busy: 0, other: {} };
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const res = await postGraphql(urls[i % urls.length], body, headers);
      const text = await res.text();
      if (res.status === 200) tally.admitted++;
      else if (
        res.status === 429 && res.headers.get('retry-after') === '5' &&
        JSON.parse(text).errors?.[0]?.extensions?.code === 'TenantBusy'
      ) tally.busy++;
      else {
        const key = `${res.status} ${text.slice(0, 80)}`;
        tally.other[key] = (tally.other[key] ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return tally;
}

/** Polls `check` every 50 ms until true; false after `timeoutMs`. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return await check();
}

/** The line a process prints when the backend missed a shared-limits deadline. */
const FALLBACK_LINE = 'per-process limits until it does';

/**
 * Asserts the sockets admitted out of a burst against one tenant's ceiling `max` across
 * `processes`: exactly `max` while the backend answered every call in time; when a process
 * printed the fallback line (a call missed its deadline, as on a loaded machine), the documented
 * fallback bound instead: at least `max`, at most `max` per process.
 */
export function assertSocketsAdmitted(
  admitted: number,
  max: number,
  processes: number,
  lines: readonly string[],
  detail: string,
): void {
  if (!lines.some((l) => l.includes(FALLBACK_LINE))) {
    assert.equal(admitted, max, detail);
    return;
  }
  console.log(`the backend missed a deadline during the burst: per-process bound (${detail})`);
  assert.ok(admitted >= max && admitted <= max * processes, `${admitted} admitted; ${detail}`);
}

/** Opens a graphql-transport-ws socket with `authToken`: 'ack' or the close code. */
export function openSocket(
  url: string,
  authToken: string,
): { ws: WebSocket; outcome: Promise<string> } {
  const ws = new WebSocket(`${url.replace('http', 'ws')}/svc/graphql`, 'graphql-transport-ws');
  const outcome = new Promise<string>((resolve) => {
    ws.onclose = (e) => resolve(String(e.code));
    ws.onmessage = (e) => {
      if (JSON.parse(String(e.data)).type === 'connection_ack') resolve('ack');
    };
  });
  ws.onopen = () => ws.send(JSON.stringify({ type: 'connection_init', payload: { authToken } }));
  return { ws, outcome };
}

/**
 * The environment of a gateway child process with the session gate on over `backend` and the
 * sandbox upstream, plus `extra` (unset entries dropped: a child's environment is strings).
 */
export function gatedChildEnv(
  sandbox: Sandbox,
  backend: Backend,
  extra: Record<string, string>,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(sandboxEnv(sandbox, { ...gateEnv(backend), ...extra }))
      .filter((e): e is [string, string] => e[1] !== undefined),
  );
}
