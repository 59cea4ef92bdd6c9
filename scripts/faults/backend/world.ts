/**
 * What every backend fault runs on: a real PostgreSQL (restartable, postgres.ts) with the
 * migrations applied, the PostgREST-compatible fixture over it, the fault proxy in front of
 * that (the gateway's CLIENT_BACKEND_URL), the sandbox upstream in this process (so what
 * reached it can be read), and the seeded accounts of tests/gate: A owns workspace A with bots
 * 1 and 2, B owns workspace B with bot 3, C has no workspace.
 */
import pg from 'pg';
import { type Sandbox, SANDBOX_TOKEN, startSandbox, WORLD_IDS } from '../../sandbox/mod.ts';
import { type Backend, startBackend } from '../../../tests/fixtures/db/backend.ts';
import { type FaultProxy, startFaultProxy } from './fault_proxy.ts';
import { type RestartableCluster, startRestartablePostgres } from './postgres.ts';

/** The admin password every fault gateway gets (16+ characters). */
export const ADMIN_PASSWORD = 'fault-suite-admin-password-0001';
/** The publishing secret every fault gateway gets. */
export const PUBLISHING_SECRET = 'fault-suite-publishing-secret-0001';

/** The seeded accounts (database user ids). */
export interface WorldUsers {
  a: string;
  b: string;
  c: string;
}

/** A running world. */
export interface BackendWorld {
  cluster: RestartableCluster;
  backend: Backend;
  proxy: FaultProxy;
  sandbox: Sandbox;
  users: WorldUsers;
  /**
   * A fresh session token of `user` (a distinct token each call, so the gate has not cached
   * it), issued by the proxy's address as the gateway's backend.
   */
  token(user: string): Promise<string>;
  /** The gateway environment: gate on with the service-role key, admin panel, publishing. */
  env(extra?: Record<string, string>): Record<string, string>;
  stop(): Promise<void>;
}

/**
 * Runs one query as the superuser of the world's database on a connection of its own (the
 * seed's connection does not survive a PostgreSQL restart).
 */
export async function queryOnce<T extends pg.QueryResultRow>(
  world: BackendWorld,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: world.backend.connectionString });
  client.on('error', () => {});
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** Starts a world (about 1 s: initdb, migrations, seed). */
export async function startBackendWorld(): Promise<BackendWorld> {
  const cluster = await startRestartablePostgres();
  const stops: (() => Promise<void>)[] = [() => cluster.stop()];
  const stop = async () => {
    for (const step of stops.splice(0).reverse()) await step().catch(() => undefined);
  };
  try {
    const backend = await startBackend(cluster);
    stops.push(() => backend.stop());
    const proxy = await startFaultProxy(backend.rest.url);
    stops.push(() => proxy.stop());
    const sandbox = await startSandbox();
    stops.push(() => sandbox.close());
    const users = await seed(backend);
    let serial = 0;
    return {
      cluster,
      backend,
      proxy,
      sandbox,
      users,
      token: (user) =>
        backend.rest.mintUserToken(user, {
          expSeconds: 3600 + ++serial,
          issuer: `${proxy.url}/auth/v1`,
        }),
      env: (extra = {}) => ({
        SVC_TOKEN: SANDBOX_TOKEN,
        SVC_API_BASE: sandbox.url,
        CLIENT_BACKEND_URL: proxy.url,
        CLIENT_BACKEND_ANON_KEY: backend.rest.anonKey,
        BACKEND_SERVICE_ROLE_KEY: backend.rest.serviceRoleKey,
        SVC_WORKSPACE_ID: WORLD_IDS.workspaceA,
        ADMIN_PASSWORD,
        TRUST_FORWARDED_FOR: '1',
        PUBLISHING_SECRET,
        // The shared tenant limits' once-a-second sync would keep a backend connection open at
        // every moment, which this suite counts as a call never given up (upstreamConnections);
        // their own backend outages are tested in tests/shared_limits/ (fallback, reconcile).
        SVC_SHARED_LIMITS: 'off',
        ...extra,
      }),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function seed(backend: Backend): Promise<WorldUsers> {
  const { seed } = backend;
  const a = await seed.createUser('a@example.test');
  const b = await seed.createUser('b@example.test');
  const c = await seed.createUser('c@example.test');
  const wsA = await seed.createWorkspace('Workspace A', a);
  const wsB = await seed.createWorkspace('Workspace B', b);
  await seed.createBot(wsA, 'Bot 1', WORLD_IDS.bot1);
  await seed.createBot(wsA, 'Bot 2', WORLD_IDS.bot2);
  await seed.createBot(wsB, 'Bot 3', WORLD_IDS.bot3);
  return { a, b, c };
}
