/**
 * The upstream's HTTP faults (scripts/faults/upstream/http.ts), each run briefly on both hosts
 * (CI's short version of `deno task soak`): the fault's callers got the expected answers, the
 * ordinary traffic kept going through, and every count came back to its baseline.
 */
import assert from 'node:assert/strict';
import { upstreamHttpFaults } from '../../scripts/faults/upstream/http.ts';

const BRIEF = { durationMs: 1_500 };

for (const fault of upstreamHttpFaults) {
  for (const host of fault.hosts) {
    Deno.test(`[${host}] ${fault.name}`, async () => {
      const report = await fault.run(host, BRIEF);
      // the problems include any label outside the fault's expected ones and any required
      // label no call got (scripts/faults/run.ts)
      assert.deepEqual(report.problems, [], JSON.stringify(report, null, 1));
    });
  }
}
