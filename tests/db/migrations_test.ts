/**
 * supabase/migrations on a real PostgreSQL: they apply on a fresh database, re-run safely, keep
 * every svc_ table behind row-level security with no privilege for anyone, and make every svc_
 * function security definer with an empty search_path and no PUBLIC grant. Who may execute each
 * function: tests/db/function_grants_test.ts (against docs/backend.md).
 */
import assert from 'node:assert/strict';
import { basename } from 'node:path';
import pg from 'pg';
import { migrate, migrationFiles, startPostgres } from '../fixtures/db/postgres.ts';
import { openSeed } from '../fixtures/db/seed.ts';

/** The tables of the session gate and resource store (other migrations may add more svc_ ones). */
const GATE_TABLES = [
  'svc_workspaces',
  'svc_members',
  'svc_bots',
  'svc_bot_grants',
  'svc_resource_owner',
  'svc_admin_throttle',
  'svc_admin_bots',
  'svc_posts',
  'svc_publishing_settings',
  'svc_media',
];

const API_ROLES = ['anon', 'authenticated', 'service_role'];

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Every svc_ table in schema public, sorted. */
async function svcTables(
  client: pg.Client,
): Promise<{ relname: string; relrowsecurity: boolean }[]> {
  const result = await client.query<{ relname: string; relrowsecurity: boolean }>(
    `select relname, relrowsecurity from pg_class
      where relnamespace = 'public'::regnamespace and relkind in ('r', 'p')
        and relname like 'svc\\_%' order by relname`,
  );
  return result.rows;
}

/** Runs `sql` as `role` in a rolled-back transaction; answers the SQLSTATE, or 'ok'. */
async function tryAs(client: pg.Client, role: string, sql: string): Promise<string> {
  await client.query('begin');
  try {
    await client.query(`set local role ${role}`);
    await client.query(sql);
    return 'ok';
  } catch (error) {
    return (error as { code: string }).code;
  } finally {
    await client.query('rollback');
  }
}

Deno.test('supabase migrations', async (t) => {
  const cluster = await startPostgres();
  try {
    await t.step('migration files are timestamped and come after the bootstrap', async () => {
      const files = (await migrationFiles()).map((f) => basename(f));
      assert.equal(files[0], 'supabase_bootstrap.sql');
      assert.ok(files.length >= 3);
      for (const name of files.slice(1)) assert.match(name, /^\d{14}_[a-z0-9_]+\.sql$/);
    });

    await t.step('apply on a fresh database; every svc_ table has RLS on', async () => {
      const db = await cluster.createDatabase();
      await migrate(db);
      const rows = await withClient(db, svcTables);
      const names = rows.map((r) => r.relname);
      for (const table of GATE_TABLES) assert.ok(names.includes(table), table);
      for (const row of rows) assert.equal(row.relrowsecurity, true, row.relname);
    });

    await t.step('re-running every migration keeps data and functions', async () => {
      const db = await cluster.createDatabase();
      await migrate(db);
      const seed = await openSeed(db);
      try {
        const user = await seed.createUser('rerun@example.test');
        const ws = await seed.createWorkspace('Rerun', user);
        await seed.createBot(ws, 'Bot', 'aaaaaaaaaaaaaaaaaaaaaaaa');
        await migrate(db);
        await migrate(db);
        const ids = await seed.query<{ ids: string[] }>(
          `select set_config('request.jwt.claims', $1, false), public.svc_my_bot_ids() as ids`,
          [JSON.stringify({ sub: user, role: 'authenticated' })],
        );
        assert.deepEqual(ids.rows[0].ids, ['aaaaaaaaaaaaaaaaaaaaaaaa']);
        const count = await seed.query<{ n: number }>(
          'select count(*)::int as n from public.svc_workspaces',
        );
        assert.equal(count.rows[0].n, 1);
      } finally {
        await seed.close();
      }
    });

    await t.step(
      'the bootstrap grants new public tables to the API roles, as Supabase does',
      async () => {
        const db = await cluster.createDatabase();
        await migrate(db);
        await withClient(db, async (c) => {
          await c.query('create table public.not_ours (id int)');
          assert.equal(await tryAs(c, 'anon', 'select * from public.not_ours'), 'ok');
          assert.equal(await tryAs(c, 'authenticated', 'select * from public.not_ours'), 'ok');
        });
      },
    );

    await t.step('svc_ tables refuse anon, authenticated and service_role directly', async () => {
      const db = await cluster.createDatabase();
      await migrate(db);
      await withClient(db, async (c) => {
        const tables = (await svcTables(c)).map((r) => r.relname);
        assert.ok(tables.length >= GATE_TABLES.length);
        for (const table of tables) {
          for (const role of API_ROLES) {
            const privileges = await c.query<{ any: boolean }>(
              `select has_table_privilege($1, $2, 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE')
                 as any`,
              [role, `public.${table}`],
            );
            assert.equal(privileges.rows[0].any, false, `${role} on ${table}`);
            assert.equal(await tryAs(c, role, `select * from public.${table}`), '42501');
          }
        }
      });
    });

    await t.step(
      'every svc_ function: security definer, empty search_path, not PUBLIC',
      async () => {
        const db = await cluster.createDatabase();
        await migrate(db);
        const rows = await withClient(db, async (c) =>
          (await c.query<
            { fn: string; prosecdef: boolean; proconfig: string[] | null; acl: string[] }
          >(
            `select oid::regprocedure::text as fn, prosecdef, proconfig,
                  coalesce(proacl::text[], '{}') as acl
             from pg_proc
            where pronamespace = 'public'::regnamespace and proname like 'svc\\_%'`,
          )).rows);
        assert.ok(rows.length > 30, `${rows.length} svc_ functions`);
        for (const row of rows) {
          assert.equal(row.prosecdef, true, row.fn);
          assert.deepEqual(row.proconfig, ['search_path=""'], row.fn);
          // proacl null would mean the default (PUBLIC may execute); '=X/...' is a PUBLIC grant
          assert.ok(row.acl.length > 0, `${row.fn} keeps the default PUBLIC grant`);
          assert.deepEqual(row.acl.filter((e) => e.startsWith('=')), [], `PUBLIC on ${row.fn}`);
        }
      },
    );
  } finally {
    await cluster.stop();
  }
});
