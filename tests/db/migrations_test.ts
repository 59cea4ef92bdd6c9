/**
 * supabase/migrations on a real PostgreSQL: they apply on a fresh database, re-run safely, keep
 * every svc_ table behind row-level security with no privilege for anyone, and grant each
 * function to exactly the roles that may call it (security definer, empty search_path).
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

/** Who may execute each svc_ function (everyone else, PUBLIC included, may not). */
const FUNCTION_GRANTS: Record<string, string[]> = {
  'svc_my_bot_ids()': ['authenticated', 'service_role'],
  'svc_resource_owner_lookup(text[])': ['service_role'],
  'svc_resource_bind(jsonb)': ['service_role'],
  'svc_provision(text)': ['authenticated'],
  'svc_bot_reserve(text)': ['authenticated'],
  'svc_bot_rename(text,text)': ['authenticated'],
  'svc_bot_rename_restore(text,text)': ['authenticated'],
  'svc_bot_delete_check(text)': ['authenticated'],
  'svc_bot_forget(text)': ['authenticated'],
  'svc_recovery_authorize(text)': ['authenticated'],
  'svc_bot_attach(uuid,uuid,text)': ['service_role'],
  'svc_bot_release(uuid,uuid)': ['service_role'],
  'svc_auth_uid()': [],
  'svc_auth_check_name(text)': [],
  'svc_auth_bots(uuid,uuid,text)': [],
  'svc_auth_reserve_in(uuid,uuid,text)': [],
  'svc_auth_own_bot(uuid,text)': [],
  'svc_admin_throttle_take(text,integer,integer,integer)': ['service_role'],
  'svc_admin_throttle_clear(text)': ['service_role'],
  'svc_admin_tenants()': ['service_role'],
  'svc_admin_grant(text,text)': ['service_role'],
  'svc_admin_revoke(text,text)': ['service_role'],
  'svc_admin_bot_record(text,text,text)': ['service_role'],
  'svc_admin_bot_rename(text,text)': ['service_role'],
  'svc_admin_bot_forget(text)': ['service_role'],
  // publish queue (20261124000000_svc_publishing.sql); helpers granted to nobody
  'svc_posts_list(text)': ['authenticated'],
  'svc_post_create(text,jsonb)': ['authenticated'],
  'svc_post_update(text,text,jsonb)': ['authenticated'],
  'svc_post_delete(text,text)': ['authenticated'],
  'svc_posts_claim(integer)': ['service_role'],
  'svc_posts_reap(integer,integer)': ['service_role'],
  'svc_post_take(text,text)': ['service_role'],
  'svc_post_report(text,text,text,text,text,text)': ['service_role'],
  'svc_publishing_register(text,text,text)': ['service_role'],
  'svc_publishing_status()': ['service_role'],
  'svc_publish_tick()': ['service_role'],
  'svc_publishing_schedule()': [],
  'svc_post_fence(text)': [],
  'svc_post_find(text,text)': [],
  'svc_post_check_url(jsonb,text)': [],
  'svc_publish_key_check(text)': [],
  'svc_publishing_callback_headers()': [],
  'svc_media_reserve(text,text,bigint,text,bigint)': ['service_role'],
  'svc_media_forget(text,text)': ['service_role'],
  'svc_media_expired(integer,integer)': ['service_role'],
  'svc_media_sweep_tick()': ['service_role'],
};

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

    await t.step('each function is executable by exactly the roles that may call it', async () => {
      const db = await cluster.createDatabase();
      await migrate(db);
      await withClient(db, async (c) => {
        for (const [fn, allowed] of Object.entries(FUNCTION_GRANTS)) {
          for (const role of API_ROLES) {
            const r = await c.query<{ ok: boolean }>(
              `select has_function_privilege($1, $2, 'EXECUTE') as ok`,
              [role, `public.${fn}`],
            );
            assert.equal(r.rows[0].ok, allowed.includes(role), `${role} on ${fn}`);
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
        const names = rows.map((r) => r.fn);
        for (const fn of Object.keys(FUNCTION_GRANTS)) assert.ok(names.includes(fn), fn);
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
