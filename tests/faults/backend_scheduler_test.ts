/**
 * The publish scheduler calling back a gateway that is down or slow, and a callback whose
 * database calls stall or are cut (scripts/faults/backend/scheduler.ts), on both hosts, as
 * supabase/migrations/20261124000500_svc_publishing_scheduler.sql says: a post whose callback
 * never reached the gateway is reaped, retried and published once; three undelivered callbacks
 * end it failed; a post the gateway took but could not report ends failed and is never
 * published twice. Counts back at baseline.
 */
import assert from 'node:assert/strict';
import { schedulerFaults } from '../../scripts/faults/backend/scheduler.ts';
import { assertFaultPassed } from './backend_assertions.ts';

const [down, slow, database] = schedulerFaults;

for (const host of ['deno', 'node'] as const) {
  Deno.test(`${down.name} (${host})`, async () => {
    const report = await down.run(host, { durationMs: 0 });
    assertFaultPassed(report);
    assert.equal(report.answers['callback refused'], 4);
    assert.equal(report.answers['callback ok'], 1);
  });
  Deno.test(`${slow.name} (${host})`, async () => {
    const report = await slow.run(host, { durationMs: 0 });
    assertFaultPassed(report);
    assert.equal(report.answers['callback timed out'], 1);
    assert.equal(report.answers['callback 409 PostNotClaimed'], 1);
  });
  Deno.test(`${database.name} (${host})`, async () => {
    const report = await database.run(host, { durationMs: 0 });
    assertFaultPassed(report);
    assert.equal(report.answers['callback 503 ProxyAuthUnavailable'], 2);
    assert.equal(report.answers['callback ok'], 1);
  });
}
