/**
 * The session gate's backend faults (scripts/faults/backend/gate.ts) on both hosts, briefly:
 * backend unreachable, stalled past the lookup deadline, slow but inside it, 500, and answers
 * of the wrong shape. Each run must report the spec's answer (503 ProxyAuthUnavailable, nothing
 * of it reaching the upstream; admitted when inside the deadline), the cached owner served throughout, a fresh session admitted once the backend
 * heals, and the process's counts back at their baseline.
 */
import assert from 'node:assert/strict';
import { gateFaults } from '../../scripts/faults/backend/gate.ts';
import { assertFaultPassed } from './backend_assertions.ts';

for (const fault of gateFaults) {
  for (const host of fault.hosts) {
    Deno.test(`${fault.name} (${host})`, async () => {
      const report = await fault.run(host, { durationMs: 1_000 });
      assertFaultPassed(report);
      const during = fault.name.includes('inside the deadline')
        ? 'admitted ok'
        : '503 ProxyAuthUnavailable';
      assert.ok(report.answers[during] > 0, during);
      assert.equal(report.answers['recovered ok'], 1);
    });
  }
}
