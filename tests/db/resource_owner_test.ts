/**
 * The resource fence's shared store (SPEC "Resource fence", shared store; "Resource binding
 * states") through the PostgREST-compatible endpoint as the service role: svc_resource_bind
 * writes new ids, marks an id seen under a second bot shared, rewrites rows older than 6 hours;
 * svc_resource_owner_lookup sees only rows bound within the last day. Time is simulated by
 * setting bound_at directly.
 */
import assert from 'node:assert/strict';
import { type Backend, startBackend } from '../fixtures/db/backend.ts';
import { type PostgresCluster, startPostgres } from '../fixtures/db/postgres.ts';

const R1 = '0123456789abcdef01234567';
const R2 = '0123456789abcdef01234568';
const R3 = '0123456789abcdef01234569';
const BOT_X = 'bbbbbbbbbbbbbbbbbbbbbbb1';
const BOT_Y = 'bbbbbbbbbbbbbbbbbbbbbbb2';

type Row = { resource_id: string; bot_id: string; shared: boolean };

async function bind(backend: Backend, bindings: { resource_id: string; bot_id: string }[]) {
  const key = backend.rest.serviceRoleKey;
  const answer = await backend.rpc('svc_resource_bind', { p_bindings: bindings }, key, key);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body as number;
}

async function lookup(backend: Backend, ids: string[]): Promise<Row[]> {
  const key = backend.rest.serviceRoleKey;
  const answer = await backend.rpc('svc_resource_owner_lookup', { p_ids: ids }, key, key);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return (answer.body as Row[]).sort((a, b) => a.resource_id.localeCompare(b.resource_id));
}

/** Moves a row's bound_at `hours` into the past. */
async function age(backend: Backend, resourceId: string, hours: number): Promise<void> {
  await backend.seed.query(
    `update public.svc_resource_owner set bound_at = now() - make_interval(hours => $2)
      where resource_id = $1`,
    [resourceId, hours],
  );
}

/** Hours since the row was (re)written, by the database clock. */
async function hoursSinceBound(backend: Backend, resourceId: string): Promise<number> {
  const r = await backend.seed.query<{ h: number }>(
    `select extract(epoch from now() - bound_at)::float8 / 3600 as h
       from public.svc_resource_owner where resource_id = $1`,
    [resourceId],
  );
  return r.rows[0].h;
}

async function withBackend(cluster: PostgresCluster, fn: (b: Backend) => Promise<void>) {
  const backend = await startBackend(cluster);
  try {
    await fn(backend);
  } finally {
    await backend.stop();
  }
}

Deno.test('svc_resource_owner store', async (t) => {
  const cluster = await startPostgres();
  try {
    await t.step('new ids are written and looked up; unknown ids are absent', async () => {
      await withBackend(cluster, async (b) => {
        const written = await bind(b, [
          { resource_id: R1, bot_id: BOT_X },
          { resource_id: R2, bot_id: BOT_X },
        ]);
        assert.equal(written, 2);
        assert.deepEqual(await lookup(b, [R1, R2, R3]), [
          { resource_id: R1, bot_id: BOT_X, shared: false },
          { resource_id: R2, bot_id: BOT_X, shared: false },
        ]);
        assert.deepEqual(await lookup(b, []), []);
      });
    });

    await t.step('the same binding again within 6 hours writes nothing', async () => {
      await withBackend(cluster, async (b) => {
        await bind(b, [{ resource_id: R1, bot_id: BOT_X }]);
        await age(b, R1, 5);
        assert.equal(await bind(b, [{ resource_id: R1, bot_id: BOT_X }]), 0);
        assert.ok(await hoursSinceBound(b, R1) > 4.9);
      });
    });

    await t.step('an id seen under a second bot becomes shared (first bot kept)', async () => {
      await withBackend(cluster, async (b) => {
        await bind(b, [{ resource_id: R1, bot_id: BOT_X }]);
        assert.equal(await bind(b, [{ resource_id: R1, bot_id: BOT_Y }]), 1);
        assert.deepEqual(await lookup(b, [R1]), [{ resource_id: R1, bot_id: BOT_X, shared: true }]);
        // shared already: a third sighting within 6 hours writes nothing
        assert.equal(await bind(b, [{ resource_id: R1, bot_id: BOT_X }]), 0);
        assert.deepEqual(await lookup(b, [R1]), [{ resource_id: R1, bot_id: BOT_X, shared: true }]);
      });
    });

    await t.step('one batch naming an id under two bots binds it shared', async () => {
      await withBackend(cluster, async (b) => {
        const written = await bind(b, [
          { resource_id: R2, bot_id: BOT_Y },
          { resource_id: R2, bot_id: BOT_X },
          { resource_id: R3, bot_id: BOT_Y },
          { resource_id: R3, bot_id: BOT_Y },
        ]);
        assert.equal(written, 2);
        const rows = await lookup(b, [R2, R3]);
        assert.equal(rows[0].shared, true);
        assert.equal(rows[1].shared, false);
      });
    });

    await t.step('a row older than 6 hours is rewritten, bound_at refreshed', async () => {
      await withBackend(cluster, async (b) => {
        await bind(b, [{ resource_id: R1, bot_id: BOT_X }, { resource_id: R2, bot_id: BOT_X }]);
        await bind(b, [{ resource_id: R2, bot_id: BOT_Y }]); // R2 shared
        await age(b, R1, 7);
        await age(b, R2, 7);
        const written = await bind(b, [
          { resource_id: R1, bot_id: BOT_X },
          { resource_id: R2, bot_id: BOT_X },
        ]);
        assert.equal(written, 2);
        assert.ok(await hoursSinceBound(b, R1) < 1);
        assert.ok(await hoursSinceBound(b, R2) < 1);
        assert.deepEqual(await lookup(b, [R1, R2]), [
          { resource_id: R1, bot_id: BOT_X, shared: false },
          { resource_id: R2, bot_id: BOT_X, shared: true },
        ]);
      });
    });

    await t.step('rows older than a day are invisible, and bind afresh', async () => {
      await withBackend(cluster, async (b) => {
        await bind(b, [{ resource_id: R1, bot_id: BOT_X }, { resource_id: R2, bot_id: BOT_X }]);
        await bind(b, [{ resource_id: R2, bot_id: BOT_Y }]);
        await age(b, R1, 23);
        await age(b, R2, 25);
        assert.deepEqual(await lookup(b, [R1, R2]), [
          { resource_id: R1, bot_id: BOT_X, shared: false },
        ]);
        // the expired shared row is unknown again: bound to the new bot, not shared
        assert.equal(await bind(b, [{ resource_id: R2, bot_id: BOT_Y }]), 1);
        assert.deepEqual(await lookup(b, [R2]), [{
          resource_id: R2,
          bot_id: BOT_Y,
          shared: false,
        }]);
      });
    });

    await t.step('expired rows are pruned by later binds', async () => {
      await withBackend(cluster, async (b) => {
        await bind(b, [{ resource_id: R1, bot_id: BOT_X }]);
        await age(b, R1, 30);
        await bind(b, [{ resource_id: R2, bot_id: BOT_X }]);
        const left = await b.seed.query('select resource_id from public.svc_resource_owner');
        assert.deepEqual(left.rows, [{ resource_id: R2 }]);
      });
    });

    await t.step('bad input is refused 422 with a machine hint, nothing written', async () => {
      await withBackend(cluster, async (b) => {
        const key = b.rest.serviceRoleKey;
        const call = (fn: string, args: Record<string, unknown>) => b.rpc(fn, args, key, key);
        const tooMany = Array.from({ length: 501 }, (_, i) => ({
          resource_id: i.toString(16).padStart(24, '0'),
          bot_id: BOT_X,
        }));
        const cases: [string, Record<string, unknown>, string][] = [
          ['svc_resource_bind', { p_bindings: tooMany }, 'too_many_bindings'],
          ['svc_resource_bind', { p_bindings: { resource_id: R1, bot_id: BOT_X } }, 'bad_bindings'],
          [
            'svc_resource_bind',
            { p_bindings: [{ resource_id: 'nothex', bot_id: BOT_X }] },
            'bad_bindings',
          ],
          ['svc_resource_bind', { p_bindings: [{ resource_id: R1, bot_id: '' }] }, 'bad_bindings'],
          ['svc_resource_bind', { p_bindings: [{ resource_id: R1 }] }, 'bad_bindings'],
          ['svc_resource_bind', { p_bindings: [R1] }, 'bad_bindings'],
          ['svc_resource_bind', { p_bindings: null }, 'bad_bindings'],
          [
            'svc_resource_owner_lookup',
            { p_ids: tooMany.map((x) => x.resource_id) },
            'too_many_ids',
          ],
        ];
        for (const [fn, args, hint] of cases) {
          const answer = await call(fn, args);
          assert.equal(answer.status, 422, `${fn} ${JSON.stringify(args).slice(0, 80)}`);
          assert.equal((answer.body as { code: string }).code, 'PT422');
          assert.equal((answer.body as { hint: string }).hint, hint);
        }
        const rows = await b.seed.query('select 1 from public.svc_resource_owner');
        assert.equal(rows.rowCount, 0);
        const exactly500 = tooMany.slice(0, 500);
        assert.equal(await bind(b, exactly500), 500);
      });
    });

    await t.step('service role only: a user session gets 403, anon 401', async () => {
      await withBackend(cluster, async (b) => {
        const user = await b.seed.createUser('user@example.test');
        const token = await b.rest.mintUserToken(user);
        const bindArgs = { p_bindings: [{ resource_id: R1, bot_id: BOT_X }] };
        for (
          const [fn, args] of [
            ['svc_resource_bind', bindArgs],
            ['svc_resource_owner_lookup', { p_ids: [R1] }],
          ] as const
        ) {
          const asUser = await b.rpc(fn, args, token);
          assert.equal(asUser.status, 403, fn);
          assert.equal((asUser.body as { code: string }).code, '42501');
          const asAnon = await b.rpc(fn, args, b.rest.anonKey);
          assert.equal(asAnon.status, 401, fn);
        }
        const rows = await b.seed.query('select 1 from public.svc_resource_owner');
        assert.equal(rows.rowCount, 0);
      });
    });
  } finally {
    await cluster.stop();
  }
});
