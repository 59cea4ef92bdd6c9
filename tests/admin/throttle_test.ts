/**
 * The password throttle's rule, in memory (a clock of our own) and in svc_admin_throttle_take on
 * the real PostgreSQL: free attempts, waits doubling up to the cap, refused attempts not
 * counted, a right password clearing the key, the client key (SPEC "Authentication" 4).
 */
import assert from 'node:assert/strict';
import { createThrottle, throttleKey, waitAfter } from '../../src/routes/admin/throttle.ts';
import { startBackend } from '../fixtures/db/backend.ts';
import { startPostgres } from '../fixtures/db/postgres.ts';

const SETTINGS = { freeAttempts: 3, baseWaitMs: 1_000, capMs: 5_000, pauseMs: 0 };

Deno.test('waitAfter: nothing while free, then base, doubling, capped', () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 60].map((n) => waitAfter(SETTINGS, n)),
    [0, 0, 1_000, 2_000, 4_000, 5_000, 5_000],
  );
});

Deno.test('memory throttle: waits, refused attempts not counted, clear', async () => {
  let now = 1_000_000;
  const throttle = createThrottle(SETTINGS, null, () => now);
  assert.equal(await throttle.take('k'), 0);
  assert.equal(await throttle.take('k'), 0);
  assert.equal(await throttle.take('k'), 0); // third counted: the key now waits 1 s
  assert.equal(await throttle.take('k'), 1_000);
  now += 400;
  assert.equal(await throttle.take('k'), 600, 'a refused attempt does not extend the wait');
  assert.equal(await throttle.take('other'), 0, 'keys are separate');
  now += 600;
  assert.equal(await throttle.take('k'), 0); // fourth counted: waits 2 s
  assert.equal(await throttle.take('k'), 2_000);
  await throttle.clear('k');
  assert.equal(await throttle.take('k'), 0);
});

Deno.test('throttle key: the peer, or the last forwarded hop when trusted', () => {
  const req = new Request('http://x/', { headers: { 'x-forwarded-for': '1.1.1.1, 2.2.2.2 ,' } });
  assert.equal(throttleKey(req, '127.0.0.1', false), '127.0.0.1');
  assert.equal(throttleKey(req, '127.0.0.1', true), '2.2.2.2');
  assert.equal(throttleKey(new Request('http://x/'), '::1', true), '::1');
  assert.equal(throttleKey(new Request('http://x/'), undefined, false), 'unknown');
});

Deno.test('svc_admin_throttle_take / _clear on the real database', async () => {
  const cluster = await startPostgres();
  try {
    const backend = await startBackend(cluster);
    try {
      const key = backend.rest.serviceRoleKey;
      const take = async (k = '10.0.0.1') => {
        const res = await backend.rpc(
          'svc_admin_throttle_take',
          { p_key: k, p_free: 2, p_base_ms: 60_000, p_cap_ms: 100_000 },
          key,
          key,
        );
        assert.equal(res.status, 200, JSON.stringify(res.body));
        return res.body as number;
      };
      const failures = async () =>
        (await backend.seed.query('select failures from public.svc_admin_throttle'))
          .rows[0]?.failures;
      assert.equal(await take(), 0);
      assert.equal(await take(), 0); // second counted: waits 60 s
      const wait = await take();
      assert.ok(wait > 55_000 && wait <= 60_000, `wait ${wait}`);
      assert.equal(await failures(), 2, 'the refused attempt was not counted');
      // let the wait pass: the next attempt is counted and would wait 120 s: the cap says 100 s
      await backend.seed.query(`update public.svc_admin_throttle set blocked_until = now()`);
      assert.equal(await take(), 0);
      const doubled = await take();
      assert.ok(doubled <= 100_000 && doubled > 95_000, `capped at 100 s: ${doubled}`);
      assert.equal(await take('10.0.0.2'), 0, 'another key has its own budget');
      const cleared = await backend.rpc(
        'svc_admin_throttle_clear',
        { p_key: '10.0.0.1' },
        key,
        key,
      );
      assert.equal(cleared.status, 204);
      assert.equal(await take(), 0);
      const bad = await backend.rpc(
        'svc_admin_throttle_take',
        { p_key: '', p_free: 2, p_base_ms: 1, p_cap_ms: 1 },
        key,
        key,
      );
      assert.equal(bad.status, 422);
      const anon = await backend.rpc(
        'svc_admin_throttle_take',
        { p_key: 'x', p_free: 2, p_base_ms: 1, p_cap_ms: 1 },
      );
      assert.equal(anon.status, 401, 'not callable with the anon key');
    } finally {
      await backend.stop();
    }
  } finally {
    await cluster.stop();
  }
});
