/**
 * The shared request budget and its link (src/shared_limits/budget.ts, link.ts) over the real
 * backend calls (src/backend/limits_rpc.ts → the PostgREST-compatible endpoint → PostgreSQL):
 * leases instead of a call per request, a dry bucket costs no call per refusal, a stalled backend
 * falls back to per-process limits after the deadline (one log line, however long it flaps), the
 * process's sync brings the shared limits back once it answers, and what was admitted meanwhile
 * is debited from the shared bucket then.
 */
import assert from 'node:assert/strict';
import { createBackendRpc } from '../../src/backend/rpc.ts';
import { createLimitsBackend } from '../../src/backend/limits_rpc.ts';
import { DEFAULTS } from '../../src/config/defaults.ts';
import { createTenants } from '../../src/admission/tenants.ts';
import { createSharedBudget } from '../../src/shared_limits/budget.ts';
import { createLink } from '../../src/shared_limits/link.ts';
import { createSharedSockets } from '../../src/shared_limits/sockets.ts';
import { startSync } from '../../src/shared_limits/sync.ts';
import { type Backend, startBackend } from '../fixtures/db/backend.ts';
import { startPostgres } from '../fixtures/db/postgres.ts';

function budgetOver(backend: Backend, perMinute: number, lines: string[]) {
  const rpc = createBackendRpc(backend.rest.url, backend.rest.serviceRoleKey, fetch);
  const limits = createLimitsBackend(rpc, DEFAULTS.sharedDeadlineMs);
  const link = createLink({ log: (l) => lines.push(l), logEveryMs: 60_000 });
  const local = createTenants({
    requestsPerMinute: perMinute,
    maxSockets: 8,
    tracked: 100,
    idleMs: 60_000,
    noBotShare: 0.1,
  });
  const budget = createSharedBudget({
    backend: limits,
    link,
    local,
    burst: () => perMinute,
    tracked: 100,
  });
  return { budget, link, backend: limits };
}

/** Takes `n` requests of `key` one after the other; answers how many were admitted. */
async function takeMany(
  budget: { take(k: string): boolean | Promise<boolean> },
  n: number,
  key = 'bots:t',
) {
  let admitted = 0;
  for (let i = 0; i < n; i++) if (await budget.take(key)) admitted++;
  return admitted;
}

/** Polls `check` every 20 ms until it holds; throws after `ms`. */
async function until(check: () => boolean, what: string, ms = 10_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

Deno.test('shared budget over the real backend', async (t) => {
  const cluster = await startPostgres();
  const backend = await startBackend(cluster);
  const calls = () => backend.rest.calls.get('svc_tenant_take') ?? 0;
  try {
    await t.step('leases: 600 a minute spent with a call per 20 requests at most', async () => {
      const { budget } = budgetOver(backend, 600, []);
      const before = calls();
      assert.equal(await takeMany(budget, 300), 300);
      assert.ok(calls() - before <= 300 / 20 + 1, `${calls() - before} calls`);
    });

    await t.step('a second process shares the minute; a dry bucket costs no call', async () => {
      const lines: string[] = [];
      const { budget } = budgetOver(backend, 600, lines);
      // 300 spent above, up to a lease held there: this one gets the rest
      const admitted = await takeMany(budget, 400);
      assert.ok(admitted >= 300 - 21 && admitted <= 300 + 2, `${admitted} admitted`);
      const before = calls();
      assert.equal(await takeMany(budget, 200), 0);
      assert.equal(calls() - before, 0, 'refused while dry with no call');
      assert.deepEqual(lines, []);
    });

    await t.step('a stalled backend: fallback after the deadline, once; debit after', async () => {
      const lines: string[] = [];
      const { budget, link, backend: limits } = budgetOver(backend, 60, lines);
      // a tenant of its own: its bucket starts full (60), so only the debit can empty it
      const key = 'bots:stall';
      backend.rest.switches.delayMs = DEFAULTS.sharedDeadlineMs + 500;
      const first = budget.take(key);
      assert.ok(first instanceof Promise, 'the first request of a tenant asks');
      assert.equal(await first, true, 'admitted on the per-process bucket');
      assert.equal(link.shared, false);
      assert.equal(await takeMany(budget, 100, key), 59, 'per-process: the rest of its minute');
      assert.equal(lines.length, 1, lines.join('\n'));
      // the process's own sync is the probe that brings it back once the backend answers
      const sync = startSync({
        backend: limits,
        link,
        process: 'budget-test',
        counts: () => ({}),
        apply: () => {},
        log: (l) => lines.push(l),
        intervalMs: 100,
        leaseMs: 5_000,
      });
      try {
        backend.rest.switches.delayMs = 0;
        await until(() => link.shared, 'the sync to bring the shared limits back');
      } finally {
        await sync.close();
      }
      assert.equal(lines.length, 2, lines.join('\n'));
      assert.match(lines[1], /answers again/);
      // the 60 admitted on per-process limits are debited with the next lease: nothing is left
      assert.equal(await takeMany(budget, 10, key), 0);
      const row = await backend.seed.query<{ tokens: number }>(
        `select tokens from public.svc_tenant_buckets where tenant_key = $1`,
        [key],
      );
      assert.ok(row.rows[0].tokens < 2, `${row.rows[0].tokens} left`);
    });
  } finally {
    backend.rest.switches.delayMs = 0;
    await backend.stop();
    await cluster.stop();
  }
});

Deno.test('shared sockets over the real backend: the ceiling, and a stalled backend', async () => {
  const cluster = await startPostgres();
  const backend = await startBackend(cluster);
  try {
    const rpc = createBackendRpc(backend.rest.url, backend.rest.serviceRoleKey, fetch);
    const limits = createLimitsBackend(rpc, DEFAULTS.sharedDeadlineMs);
    const lines: string[] = [];
    const link = createLink({ log: (l) => lines.push(l), logEveryMs: 60_000 });
    const open = (process: string) =>
      createSharedSockets({
        backend: limits,
        link,
        process,
        max: () => 3,
        leaseMs: 5_000,
        syncing: () => null,
      });
    const p1 = open('p1');
    const p2 = open('p2');
    // opens of one tenant in one process go one at a time: all three fit, the fourth does not
    const first = await Promise.all([p1.open('t'), p1.open('t'), p2.open('t'), p2.open('t')]);
    assert.equal(first.filter((r) => r !== null).length, 3);
    const release = first.find((r) => r !== null)!;
    release();
    release();
    const owner = first.indexOf(release) < 2 ? p1 : p2;
    assert.notEqual(await owner.open('t'), null, 'its own slot is free again at once');
    assert.equal(await p1.open('t'), null);
    backend.rest.switches.delayMs = DEFAULTS.sharedDeadlineMs + 500;
    const p3 = open('p3');
    const stalled = await Promise.all([p3.open('t'), p3.open('t'), p3.open('t'), p3.open('t')]);
    assert.equal(link.shared, false);
    assert.equal(stalled.filter((r) => r !== null).length, 3, 'per-process ceiling meanwhile');
    assert.equal(lines.length, 1);
  } finally {
    backend.rest.switches.delayMs = 0;
    await backend.stop();
    await cluster.stop();
  }
});

Deno.test('link: one line per outage, at most one a minute when it flaps', () => {
  const lines: string[] = [];
  let now = 0;
  let fallbacks = 0;
  const link = createLink({
    log: (l) => lines.push(l),
    onFallback: () => fallbacks++,
    logEveryMs: 60_000,
    now: () => now,
  });
  link.failed();
  link.failed();
  assert.equal(lines.length, 1);
  link.answered();
  assert.equal(lines.length, 2);
  for (let i = 0; i < 5; i++) {
    now += 1_000;
    link.failed();
    link.answered();
  }
  assert.equal(lines.length, 2, 'flapping within the minute: no more lines');
  assert.equal(fallbacks, 6, 'the metric counts every one');
  now += 60_000;
  link.failed();
  assert.match(lines[2], /5 more since the last line/);
});
