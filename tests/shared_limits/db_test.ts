/**
 * supabase/migrations/20261127000200_svc_shared_limits.sql through the PostgREST-compatible
 * endpoint: only the service role may call the svc_ shared-limit functions (anon 401,
 * authenticated 403, nothing written); the token bucket grants leases and never more than its
 * minute; socket leases count across processes and lapse; the revocation feed carries grant,
 * membership and bot deletions after a cursor.
 */
import assert from 'node:assert/strict';
import { type Backend, startBackend } from '../fixtures/db/backend.ts';
import { type PostgresCluster, startPostgres } from '../fixtures/db/postgres.ts';

const CALLS: [string, Record<string, unknown>][] = [
  ['svc_tenant_take', { p_tenant: 't', p_want: 5, p_per_minute: 600 }],
  ['svc_socket_open', { p_process: 'p', p_tenant: 't', p_local: 0, p_max: 8, p_lease_ms: 5000 }],
  ['svc_limits_sync', { p_process: 'p', p_sockets: { t: 1 }, p_lease_ms: 5000, p_after: null }],
];

async function asService(backend: Backend, fn: string, args: Record<string, unknown>) {
  const key = backend.rest.serviceRoleKey;
  const answer = await backend.rpc(fn, args, key, key);
  assert.equal(answer.status, 200, `${fn}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

async function count(backend: Backend, table: string): Promise<number> {
  const r = await backend.seed.query<{ n: number }>(`select count(*)::int as n from ${table}`);
  return r.rows[0].n;
}

async function withBackend(cluster: PostgresCluster, fn: (b: Backend) => Promise<void>) {
  const backend = await startBackend(cluster);
  try {
    await fn(backend);
  } finally {
    await backend.stop();
  }
}

type Feed = { cursor: number; revocations: { userId: string | null; botId: string }[] };

Deno.test('svc shared limits (SQL)', async (t) => {
  const cluster = await startPostgres();
  try {
    await t.step('anon and authenticated cannot call them; nothing is written', async () => {
      await withBackend(cluster, async (backend) => {
        const user = await backend.seed.createUser('a@example.test');
        const jwt = await backend.rest.mintUserToken(user);
        for (const [fn, args] of CALLS) {
          const anon = await backend.rpc(fn, args);
          assert.equal(anon.status, 401, `anon ${fn}`);
          assert.equal((anon.body as { code: string }).code, '42501');
          const signedIn = await backend.rpc(fn, args, jwt);
          assert.equal(signedIn.status, 403, `authenticated ${fn}`);
          assert.equal((signedIn.body as { code: string }).code, '42501');
        }
        assert.equal(await count(backend, 'public.svc_tenant_buckets'), 0);
        assert.equal(await count(backend, 'public.svc_socket_leases'), 0);
        for (const [fn, args] of CALLS) await asService(backend, fn, args);
        assert.equal(await count(backend, 'public.svc_tenant_buckets'), 1);
      });
    });

    await t.step('the bucket grants leases up to its minute, refills, and reconciles', async () => {
      await withBackend(cluster, async (backend) => {
        const take = (want: number, spent = 0) =>
          asService(backend, 'svc_tenant_take', {
            p_tenant: 'bots:x',
            p_want: want,
            p_per_minute: 60,
            p_spent: spent,
          });
        let total = 0;
        for (let i = 0; i < 10; i++) total += await take(20) as number;
        // 60 a minute: the burst of 60 plus at most the refill of the calls' few ms
        assert.ok(total >= 60 && total <= 61, `granted ${total}`);
        // a full bucket again (a minute ago), then 50 spent while the database was away
        await backend.seed.query(
          `update public.svc_tenant_buckets set tokens = 60,
             refilled_at = clock_timestamp() - interval '1 minute'`,
        );
        assert.equal(await take(20, 50), 10);
        const bad = await backend.rpc(
          'svc_tenant_take',
          {
            p_tenant: '',
            p_want: 1,
            p_per_minute: 60,
          },
          backend.rest.serviceRoleKey,
          backend.rest.serviceRoleKey,
        );
        assert.equal(bad.status, 422);
      });
    });

    await t.step('socket leases count across processes and lapse', async () => {
      await withBackend(cluster, async (backend) => {
        const open = (process: string, local: number) =>
          asService(backend, 'svc_socket_open', {
            p_process: process,
            p_tenant: 'bots:y',
            p_local: local,
            p_max: 3,
            p_lease_ms: 1000,
          });
        assert.equal(await open('p1', 0), true);
        assert.equal(await open('p2', 0), true);
        assert.equal(await open('p1', 1), true);
        assert.equal(await open('p3', 0), false);
        // p1 closes one: its sync says 1
        await asService(backend, 'svc_limits_sync', {
          p_process: 'p1',
          p_sockets: { 'bots:y': 1 },
          p_lease_ms: 1000,
          p_after: 0,
        });
        assert.equal(await open('p3', 0), true);
        assert.equal(await open('p3', 1), false);
        // p2 and p3 stop renewing: their counts lapse with the lease
        await backend.seed.query(
          `update public.svc_socket_leases set expires_at = clock_timestamp() - interval '1 ms'
            where process_id in ('p2', 'p3')`,
        );
        assert.equal(await open('p4', 0), true);
        assert.equal(await open('p4', 1), true);
        assert.equal(await open('p4', 2), false);
        // a sync with nothing left deletes the process's rows
        await asService(backend, 'svc_limits_sync', {
          p_process: 'p1',
          p_sockets: {},
          p_lease_ms: 1000,
          p_after: 0,
        });
        const rows = await backend.seed.query(
          `select 1 from public.svc_socket_leases where process_id = 'p1'`,
        );
        assert.equal(rows.rows.length, 0);
      });
    });

    await t.step('the revocation feed: grants, memberships and bots deleted', async () => {
      await withBackend(cluster, async (backend) => {
        const { seed } = backend;
        const owner = await seed.createUser('o@example.test');
        const member = await seed.createUser('m@example.test');
        const ws = await seed.createWorkspace('W', owner);
        const bot1 = await seed.createBot(ws, 'B1', 'aaaaaaaaaaaaaaaaaaaaaaa1');
        await seed.createBot(ws, 'B2', 'aaaaaaaaaaaaaaaaaaaaaaa2');
        await seed.addMember(ws, member, 'member');
        await seed.grantBot(bot1, member);
        const sync = (after: number | null) =>
          asService(backend, 'svc_limits_sync', {
            p_process: 'p',
            p_sockets: {},
            p_lease_ms: 1000,
            p_after: after,
          }) as Promise<Feed>;
        const start = await sync(null);
        assert.deepEqual(start.revocations, []);
        const key = backend.rest.serviceRoleKey;
        const revoked = await backend.rpc(
          'svc_admin_revoke',
          {
            p_bot_id: 'aaaaaaaaaaaaaaaaaaaaaaa1',
            p_user_id: member,
          },
          key,
          key,
        );
        assert.equal(revoked.status, 200);
        const first = await sync(start.cursor);
        assert.deepEqual(first.revocations, [
          { userId: member, botId: 'aaaaaaaaaaaaaaaaaaaaaaa1' },
        ]);
        assert.deepEqual((await sync(first.cursor)).revocations, []);
        await seed.query('delete from public.svc_members where user_id = $1', [owner]);
        await seed.query(
          `delete from public.svc_bots where upstream_bot_id = 'aaaaaaaaaaaaaaaaaaaaaaa2'`,
        );
        const later = await sync(first.cursor);
        const byKey = (r: Feed['revocations'][number]) => `${r.userId}/${r.botId}`;
        const sorted = (rows: Feed['revocations']) =>
          [...rows].sort((a, b) => byKey(a).localeCompare(byKey(b)));
        assert.deepEqual(
          sorted(later.revocations),
          sorted([
            { userId: owner, botId: 'aaaaaaaaaaaaaaaaaaaaaaa1' },
            { userId: owner, botId: 'aaaaaaaaaaaaaaaaaaaaaaa2' },
            { userId: null, botId: 'aaaaaaaaaaaaaaaaaaaaaaa2' },
          ]),
        );
      });
    });

    await t.step('the feed answers 1,000 rows a call at most, in order', async () => {
      await withBackend(cluster, async (backend) => {
        const sync = (after: number | null) =>
          asService(backend, 'svc_limits_sync', {
            p_process: 'p',
            p_sockets: {},
            p_lease_ms: 1000,
            p_after: after,
          }) as Promise<Feed>;
        const start = await sync(null);
        await backend.seed.query(
          `insert into public.svc_revocations (user_id, bot_id)
             select null, 'bot' || g from generate_series(1, 1500) g`,
        );
        const first = await sync(start.cursor);
        assert.equal(first.revocations.length, 1000);
        assert.equal(first.revocations[0].botId, 'bot1');
        const second = await sync(first.cursor);
        assert.equal(second.revocations.length, 500);
        assert.equal(second.revocations[499].botId, 'bot1500');
        assert.deepEqual((await sync(second.cursor)).revocations, []);
      });
    });
  } finally {
    await cluster.stop();
  }
});
