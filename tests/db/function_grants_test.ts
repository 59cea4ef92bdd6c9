/**
 * docs/backend.md "Who may call each function" and the migrated database agree: every svc_
 * function of schema public has exactly one row there, and anon, authenticated and service_role
 * may execute it exactly as the row says (PUBLIC never). A function a migration adds or grants
 * without a row in that table fails this test.
 */
import assert from 'node:assert/strict';
import pg from 'pg';
import { migrate, startPostgres } from '../fixtures/db/postgres.ts';

const API_ROLES = ['anon', 'authenticated', 'service_role'] as const;

/** The table of docs/backend.md: signature → the API roles that may execute it. */
export async function documentedGrants(): Promise<Map<string, string[]>> {
  const text = await Deno.readTextFile(new URL('../../docs/backend.md', import.meta.url));
  const section = text.split('## Who may call each function')[1]?.split('\n## ')[0] ?? '';
  const grants = new Map<string, string[]>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const fn = /^`(svc_[^`]+)`$/.exec(cells[1] ?? '')?.[1];
    if (fn === undefined) continue;
    assert.ok(!grants.has(fn), `${fn} is listed twice`);
    const marks = cells.slice(2, 5);
    for (const mark of marks) assert.match(mark, /^(yes|no)$/, line);
    grants.set(fn, API_ROLES.filter((_, i) => marks[i] === 'yes'));
  }
  return grants;
}

Deno.test('every svc_ function: who may execute it is what docs/backend.md lists', async () => {
  const documented = await documentedGrants();
  assert.ok(documented.size > 30, `the table was read (${documented.size} rows)`);
  const cluster = await startPostgres();
  try {
    const db = await cluster.createDatabase();
    await migrate(db);
    const client = new pg.Client({ connectionString: db });
    await client.connect();
    try {
      const { rows } = await client.query<
        { fn: string; anon: boolean; authenticated: boolean; service_role: boolean; pub: boolean }
      >(
        `select p.oid::regprocedure::text as fn,
                has_function_privilege('anon', p.oid, 'EXECUTE') as anon,
                has_function_privilege('authenticated', p.oid, 'EXECUTE') as authenticated,
                has_function_privilege('service_role', p.oid, 'EXECUTE') as service_role,
                coalesce(p.proacl is null or exists (
                  select 1 from aclexplode(p.proacl) a
                   where a.grantee = 0 and a.privilege_type = 'EXECUTE'), false) as pub
           from pg_proc p
          where p.pronamespace = 'public'::regnamespace and p.proname like 'svc\\_%'
          order by 1`,
      );
      const actual = new Map(
        rows.map((r) => [r.fn, API_ROLES.filter((role) => r[role])]),
      );
      assert.deepEqual(
        [...actual.keys()].sort(),
        [...documented.keys()].sort(),
        'the functions of the database and of the table',
      );
      for (const [fn, roles] of actual) {
        assert.deepEqual(roles, documented.get(fn), `who may execute ${fn}`);
      }
      assert.deepEqual(rows.filter((r) => r.pub).map((r) => r.fn), [], 'PUBLIC may execute');
      assert.deepEqual(rows.filter((r) => r.anon).map((r) => r.fn), [], 'anon may execute');
    } finally {
      await client.end();
    }
  } finally {
    await cluster.stop();
  }
});
