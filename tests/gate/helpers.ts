/**
 * Setup shared by the gate suites: a real PostgreSQL (one cluster per test file), a fresh
 * migrated database and PostgREST-compatible endpoint per test, the sandbox upstream, and a
 * gate-on gateway on the host under test. The world: user A owns workspace A with the
 * sandbox's bots 1 and 2, user B owns workspace B with bot 3, user C has no workspace (no bot).
 */
import { type Sandbox, startSandbox, WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import type { Env } from '../../mod.ts';
import { type Backend, startBackend } from '../fixtures/db/backend.ts';
import type { PostgresCluster } from '../fixtures/db/postgres.ts';
import { type Gateway, type HostKind, startGateway, type TestOptions } from '../helpers/gateway.ts';
import { sandboxEnv } from '../helpers/setup.ts';

/** The seeded accounts: user ids and fresh session tokens (iss = <backend>/auth/v1). */
export interface Accounts {
  a: { id: string; jwt: string };
  b: { id: string; jwt: string };
  c: { id: string; jwt: string };
}

/** What a gate test body receives. */
export interface GateSetup {
  sandbox: Sandbox;
  backend: Backend;
  gateway: Gateway;
  users: Accounts;
  /** `authorization: Bearer <jwt>` headers. */
  bearer(jwt: string): Record<string, string>;
  /** Calls of a database function that reached the endpoint so far. */
  calls(fn: string): number;
}

/** Seeds the three accounts of the module comment on `backend`. */
export async function seedAccounts(backend: Backend): Promise<Accounts> {
  const { seed, rest } = backend;
  const a = await seed.createUser('a@example.test');
  const b = await seed.createUser('b@example.test');
  const c = await seed.createUser('c@example.test');
  const wsA = await seed.createWorkspace('Workspace A', a);
  const wsB = await seed.createWorkspace('Workspace B', b);
  await seed.createBot(wsA, 'Bot 1', WORLD_IDS.bot1);
  await seed.createBot(wsA, 'Bot 2', WORLD_IDS.bot2);
  await seed.createBot(wsB, 'Bot 3', WORLD_IDS.bot3);
  return {
    a: { id: a, jwt: await rest.mintUserToken(a) },
    b: { id: b, jwt: await rest.mintUserToken(b) },
    c: { id: c, jwt: await rest.mintUserToken(c) },
  };
}

/** The gate-on environment for `backend` (anon key; service-role key unless `store` is false). */
export function gateEnv(backend: Backend, store = true): Env {
  return {
    CLIENT_BACKEND_URL: backend.rest.url,
    CLIENT_BACKEND_ANON_KEY: backend.rest.anonKey,
    SVC_WORKSPACE_ID: WORLD_IDS.workspaceA,
    ...(store ? { BACKEND_SERVICE_ROLE_KEY: backend.rest.serviceRoleKey } : {}),
  };
}

/** Starts a gateway on `kind` for `sandbox` and `backend` (gate-on env, then `env`). */
export function startGateOn(
  kind: HostKind,
  sandbox: Sandbox,
  backend: Backend,
  setup: { env?: Env; options?: TestOptions; store?: boolean } = {},
): Promise<Gateway> {
  const env = sandboxEnv(sandbox, { ...gateEnv(backend, setup.store), ...setup.env });
  return startGateway(kind, setup.options ?? {}, env);
}

/**
 * A fresh backend (seeded), a sandbox and a gate-on gateway on `kind`; runs `body`, then stops
 * all three whatever happens.
 */
export async function withGateOn(
  kind: HostKind,
  cluster: PostgresCluster,
  setup: { env?: Env; options?: TestOptions; store?: boolean },
  body: (s: GateSetup) => Promise<void>,
): Promise<void> {
  const backend = await startBackend(cluster);
  const sandbox = await startSandbox();
  let gateway: Gateway | null = null;
  try {
    const users = await seedAccounts(backend);
    gateway = await startGateOn(kind, sandbox, backend, setup);
    await body({
      sandbox,
      backend,
      gateway,
      users,
      bearer: (jwt) => ({ authorization: `Bearer ${jwt}` }),
      calls: (fn) => backend.rest.calls.get(fn) ?? 0,
    });
  } finally {
    await gateway?.stop();
    await sandbox.close();
    await backend.stop();
  }
}

/** Reads and drops a response body (leak sanitizers), returning its status. */
export async function statusOf(res: Response): Promise<number> {
  await res.body?.cancel();
  return res.status;
}

/** A query naming one bot (`$botID`): `bot(id) { id title }`. */
export const BOT_QUERY = 'query B($botID: BotID!) { bot(id: $botID) { id title } }';
/** A query whose answer binds the bot's flow group ids. */
export const GROUPS_QUERY = 'query G($botID: BotID!) { bot(id: $botID) { flowGroups { id } } }';
/** A query naming a bot and a flow (resource) id. */
export const FLOW_QUERY =
  'query F($botID: BotID!, $flowID: FlowID!) { bot(id: $botID) { flow(flowID: $flowID) { id } } }';
