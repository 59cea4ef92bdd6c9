/**
 * What every backend fault test asserts on a report: no problems (the fault's own checks: the
 * spec's answers, nothing refused reached the upstream, counts back at their baseline, memory
 * within its bound), ordinary traffic served (GraphQL POSTs, a subscription, an upload), and the
 * counts read on both sides.
 */
import assert from 'node:assert/strict';
import type { FaultReport } from '../../scripts/faults/fault.ts';
import { RSS_GROWTH_BOUND, RSS_PEAK_BOUND } from '../../scripts/faults/backend/run.ts';

/** Fails with the whole report when the run found a problem. */
export function assertFaultPassed(report: FaultReport): void {
  const shown = JSON.stringify(report, null, 1);
  assert.deepEqual(report.problems, [], shown);
  for (const label of ['others ok', 'others subscription ok', 'others upload ok']) {
    assert.ok((report.answers[label] ?? 0) > 0, `ordinary traffic: ${label}: ${shown}`);
  }
  for (const side of [report.before, report.after]) {
    assert.equal(typeof side.fds, 'number', shown);
    assert.equal(typeof side.graphqlInFlight, 'number', shown);
    assert.equal(typeof side.tenantsTracked, 'number', shown);
  }
  assert.equal(report.after.graphqlInFlight, report.before.graphqlInFlight, shown);
  assert.equal(report.after.upstreamConnections, 0, shown);
  const { before, peak, after } = report.memory;
  assert.ok(before > 0 && after > 0, `memory was read: ${shown}`);
  assert.ok(
    peak - before <= RSS_PEAK_BOUND,
    `peak ${peak - before} bytes over the start: ${shown}`,
  );
  assert.ok(after - before <= RSS_GROWTH_BOUND, `ended ${after - before} bytes up: ${shown}`);
}
