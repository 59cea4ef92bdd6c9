/**
 * The admin password throttle's shared row under backend faults
 * (scripts/faults/backend/throttle.ts) on both hosts: unreachable, past its deadline, 500, and
 * answers that are not a wait the rule can give (a string, a negative number, a wait past the
 * 15 min cap). Memory alone must stay in charge: a wrong password 401 AdminBadPassword, the right
 * one unlocks, a sixth wrong attempt of one client 429 AdminThrottled. A wait past the cap locked
 * every client out (each attempt 429, the right password too) until src/routes/admin/throttle.ts
 * `sharedWait` treated it as no answer.
 */
import assert from 'node:assert/strict';
import { throttleFaults } from '../../scripts/faults/backend/throttle.ts';
import { sharedWait } from '../../src/routes/admin/throttle.ts';
import { assertFaultPassed } from './backend_assertions.ts';

for (const fault of throttleFaults) {
  for (const host of fault.hosts) {
    Deno.test(`${fault.name} (${host})`, async () => {
      const report = await fault.run(host, { durationMs: 500 });
      assertFaultPassed(report);
      assert.equal(report.answers['429 AdminThrottled'], 1);
      assert.equal(report.answers['unlocked'], 1);
      assert.equal(report.answers['recovered unlocked'], 1);
    });
  }
}

Deno.test('sharedWait: a wait the rule can give, else none', () => {
  const cap = 15 * 60_000;
  assert.equal(sharedWait(30_000, cap), 30_000);
  assert.equal(sharedWait(cap, cap), cap);
  for (const shape of [cap + 1, -1, Number.NaN, Infinity, '30000', null, [30_000], {}]) {
    assert.equal(sharedWait(shape, cap), 0, String(shape));
  }
});
