/**
 * The reconciliation after an outage (src/shared_limits/budget.ts): what each tenant was
 * admitted on per-process limits is debited as soon as the backend answers again, one call at a
 * time (a process may owe for thousands of tenants; a call each at once would be a burst at a
 * backend that has just come back), and a call that gets no answer keeps its debt. A stand-in
 * backend: the number of calls in flight is what is under test.
 */
import assert from 'node:assert/strict';
import type { LimitsBackend } from '../../src/backend/limits_rpc.ts';
import { createTenants } from '../../src/admission/tenants.ts';
import { createSharedBudget } from '../../src/shared_limits/budget.ts';
import { createLink } from '../../src/shared_limits/link.ts';
import { eventually } from './helpers.ts';

const LIMITS = {
  requestsPerMinute: 600,
  maxSockets: 8,
  tracked: 1_000,
  idleMs: 60_000,
  noBotShare: 0.1,
};

Deno.test('reconcile: every debt sent after an outage, one call at a time; an unanswered one kept', async () => {
  let inFlight = 0;
  let most = 0;
  let answering = false;
  let failNext = 0;
  const debits = new Map<string, number>();
  const backend: LimitsBackend = {
    take(tenant, _want, _perMinute, spent) {
      inFlight++;
      most = Math.max(most, inFlight);
      return new Promise((resolve) =>
        setTimeout(() => {
          inFlight--;
          if (!answering || failNext > 0) {
            failNext = Math.max(0, failNext - 1);
            return resolve(null);
          }
          if (spent > 0) debits.set(tenant, (debits.get(tenant) ?? 0) + spent);
          resolve(0);
        }, 2)
      );
    },
    openSocket: () => Promise.resolve(null),
    sync: () => Promise.resolve(null),
  };
  let budget: ReturnType<typeof createSharedBudget> | undefined = undefined;
  const link = createLink({
    log: () => {},
    logEveryMs: 60_000,
    onShared: () => budget!.reconcile(),
  });
  budget = createSharedBudget({
    backend,
    link,
    local: createTenants(LIMITS),
    burst: () => LIMITS.requestsPerMinute,
    tracked: LIMITS.tracked,
  });
  link.failed(); // the outage: every tenant on per-process limits
  const tenants = Array.from({ length: 40 }, (_, i) => `tenant-${i}`);
  for (const t of tenants) for (let i = 0; i < 3; i++) assert.equal(budget.take(t), true);

  answering = true;
  failNext = 1; // the first repayment gets no answer: the drain stops, the debt is kept
  link.answered();
  await eventually(() => inFlight === 0, 5_000);
  assert.equal(debits.size, 0, 'nothing debited past an unanswered call');
  link.failed();
  link.answered(); // the next recovery sends them all
  assert.ok(
    await eventually(() => debits.size === tenants.length, 5_000),
    `${debits.size} debited`,
  );
  for (const t of tenants) assert.equal(debits.get(t), 3, t);
  assert.equal(most, 1, 'one call in flight at a time');
});
