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
      assert.deepEqual(report.problems, [], JSON.stringify(report, null, 1));
      assert.ok(Object.keys(report.answers).some((l) => !l.startsWith('others ')));
    });
  }
}
