/**
 * The svc_auth migration called over the PostgREST-compatible endpoint, below the routes:
 * a reservation is not a bot, a crashed reservation is reclaimed (the old token then loses),
 * attach and release are the service role's only, rename is checked by the caller and recorded
 * by the service role (keeping the previous name), the delete check, and a row forgotten only
 * after the service role recorded the upstream delete (bot_still_upstream before).
 */
import assert from 'node:assert/strict';
import { startBackend } from '../fixtures/db/backend.ts';
import { startPostgres } from '../fixtures/db/postgres.ts';

Deno.test('svc_auth functions', async (t) => {
  const cluster = await startPostgres();
  try {
    const b = await startBackend(cluster);
    try {
      const user = await b.seed.createUser('u@example.test');
      const jwt = await b.rest.mintUserToken(user);
      const service = b.rest.serviceRoleKey;
      let first: { reservation: string; token: string };

      await t.step('a reservation is not an openable bot; a second call waits', async () => {
        const r = await b.rpc('svc_provision', { p_name: 'One' }, jwt);
        assert.equal(r.status, 200);
        const body = r.body as { state: string; reservation: string; token: string };
        assert.equal(body.state, 'reserved');
        first = body;
        const ids = await b.rpc('svc_my_bot_ids', {}, jwt);
        assert.deepEqual(ids.body, []);
        const again = await b.rpc('svc_provision', { p_name: 'One' }, jwt);
        assert.equal((again.body as { state: string }).state, 'pending');
      });

      await t.step('attach and release: service role only', async () => {
        const asUser = await b.rpc('svc_bot_attach', {
          p_reservation: first.reservation,
          p_token: first.token,
          p_upstream_bot_id: 'b00000000000000000000abc',
        }, jwt);
        assert.equal(asUser.status, 403);
        const release = await b.rpc('svc_bot_release', {
          p_reservation: first.reservation,
          p_token: first.token,
        }, jwt);
        assert.equal(release.status, 403);
        const anon = await b.rpc('svc_provision', { p_name: 'x' });
        assert.equal(anon.status, 401);
      });

      await t.step('a crashed reservation is reclaimed; the old token loses', async () => {
        await b.seed.query(
          "update public.svc_bots set reserved_at = now() - interval '1 hour' where id = $1",
          [first.reservation],
        );
        const r = await b.rpc('svc_provision', { p_name: 'Two' }, jwt);
        const body = r.body as { state: string; reservation: string; token: string };
        assert.equal(body.state, 'reserved');
        assert.equal(body.reservation, first.reservation, 'the same row, not a new one');
        assert.notEqual(body.token, first.token);
        const late = await b.rpc(
          'svc_bot_attach',
          {
            p_reservation: first.reservation,
            p_token: first.token,
            p_upstream_bot_id: 'b00000000000000000000abc',
          },
          service,
          service,
        );
        assert.equal(late.status, 409);
        assert.equal((late.body as { hint: string }).hint, 'reservation_lost');
        const bad = await b.rpc(
          'svc_bot_attach',
          {
            p_reservation: body.reservation,
            p_token: body.token,
            p_upstream_bot_id: 'not/an id',
          },
          service,
          service,
        );
        assert.equal((bad.body as { hint: string }).hint, 'bad_bot_id');
        const ok = await b.rpc(
          'svc_bot_attach',
          {
            p_reservation: body.reservation,
            p_token: body.token,
            p_upstream_bot_id: 'b00000000000000000000abd',
          },
          service,
          service,
        );
        assert.equal(ok.status, 200);
        assert.equal((ok.body as { name: string }).name, 'Two');
        const rows = await b.seed.query('select count(*)::int as n from public.svc_bots');
        assert.equal(rows.rows[0].n, 1);
        assert.deepEqual((await b.rpc('svc_my_bot_ids', {}, jwt)).body, [
          'b00000000000000000000abd',
        ]);
      });

      await t.step('rename: the caller checks, the service role records', async () => {
        const bot = 'b00000000000000000000abd';
        const r = await b.rpc('svc_bot_rename', { p_bot_id: bot, p_name: ' Three ' }, jwt);
        assert.deepEqual(r.body, { id: bot, name: 'Three', previousName: 'Two' });
        const unchanged = await b.seed.query('select name from public.svc_bots');
        assert.equal(unchanged.rows[0].name, 'Two', 'the check writes nothing');
        const asUser = await b.rpc('svc_bot_renamed', { p_bot_id: bot, p_name: 'Three' }, jwt);
        assert.equal(asUser.status, 403);
        const recorded = await b.rpc(
          'svc_bot_renamed',
          { p_bot_id: bot, p_name: 'Three' },
          service,
          service,
        );
        assert.deepEqual(recorded.body, { id: bot, name: 'Three', previousName: 'Two' });
        const rows = await b.seed.query('select name, previous_name from public.svc_bots');
        assert.deepEqual(rows.rows, [{ name: 'Three', previous_name: 'Two' }]);
        const missing = await b.rpc(
          'svc_bot_renamed',
          { p_bot_id: 'b0000000000000000000ffff', p_name: 'x' },
          service,
          service,
        );
        assert.equal((missing.body as { hint: string }).hint, 'bot_not_found');
      });

      await t.step('delete check: the only bot is the last openable one', async () => {
        const r = await b.rpc(
          'svc_bot_delete_check',
          { p_bot_id: 'b00000000000000000000abd' },
          jwt,
        );
        assert.equal((r.body as { lastOpenable: boolean }).lastOpenable, true);
        const other = await b.seed.createUser('o@example.test');
        const otherJwt = await b.rest.mintUserToken(other);
        const none = await b.rpc('svc_bot_delete_check', {
          p_bot_id: 'b00000000000000000000abd',
        }, otherJwt);
        assert.equal(none.status, 404);
        assert.equal((none.body as { hint: string }).hint, 'bot_not_found');
      });

      await t.step(
        'forget: bot_still_upstream until the service role records the delete',
        async () => {
          const bot = 'b00000000000000000000abd';
          const early = await b.rpc('svc_bot_forget', { p_bot_id: bot }, jwt);
          assert.equal(early.status, 409);
          assert.equal((early.body as { hint: string }).hint, 'bot_still_upstream');
          const asUser = await b.rpc('svc_bot_upstream_deleted', { p_bot_id: bot }, jwt);
          assert.equal(asUser.status, 403);
          const recorded = await b.rpc(
            'svc_bot_upstream_deleted',
            { p_bot_id: bot },
            service,
            service,
          );
          assert.equal(recorded.body, true);
          const check = await b.rpc('svc_bot_delete_check', { p_bot_id: bot }, jwt);
          assert.deepEqual(check.body, {
            id: bot,
            name: 'Three',
            lastOpenable: false,
            upstreamDeleted: true,
          });
          const forgotten = await b.rpc('svc_bot_forget', { p_bot_id: bot }, jwt);
          assert.deepEqual(forgotten.body, { id: bot });
          const rows = await b.seed.query('select count(*)::int as n from public.svc_bots');
          assert.equal(rows.rows[0].n, 0);
        },
      );

      await t.step(
        'an abandoned reservation of another workspace does not hold the cap',
        async () => {
          // a user who reserved directly and never came back: the reservation expires
          const idle = await b.seed.createUser('idle@example.test');
          const idleJwt = await b.rest.mintUserToken(idle);
          const abandoned = await b.rpc('svc_provision', { p_name: 'Never' }, idleJwt);
          assert.equal((abandoned.body as { state: string }).state, 'reserved');
          await b.seed.query(
            "update public.svc_bots set reserved_at = now() - interval '1 hour' where upstream_bot_id is null",
          );
          const count = await b.seed.query('select count(*)::int as n from public.svc_bots');
          await b.seed.query('update public.svc_bot_caps set deployment_bot_cap = $1', [
            count.rows[0].n,
          ]);
          const fresh = await b.seed.createUser('fresh@example.test');
          const r = await b.rpc(
            'svc_provision',
            { p_name: 'Mine' },
            await b.rest.mintUserToken(fresh),
          );
          assert.equal(r.status, 200, JSON.stringify(r.body));
          assert.equal((r.body as { state: string }).state, 'reserved');
          const left = await b.seed.query(
            'select count(*)::int as n from public.svc_bots where reserved_by = $1',
            [idle],
          );
          assert.equal(left.rows[0].n, 0, 'the expired reservation was dropped');
        },
      );
    } finally {
      await b.stop();
    }
  } finally {
    await cluster.stop();
  }
});
