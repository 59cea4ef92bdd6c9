/**
 * The browser faults (scripts/faults/browser/), each run briefly on both hosts (CI's short version
 * of `deno task soak`): the fault's callers got the expected labels, each of them (the same labels
 * on both hosts: both run node:http), ordinary traffic kept going through, and every count came
 * back to its baseline.
 */
import assert from 'node:assert/strict';
import { browserAbortFaults } from '../../scripts/faults/browser/aborts.ts';
import { silentConnectionsFault } from '../../scripts/faults/browser/idle.ts';

const BRIEF = { durationMs: 1_500 };

for (const fault of [...browserAbortFaults, silentConnectionsFault]) {
  for (const host of fault.hosts) {
    Deno.test(`[${host}] ${fault.name}`, async () => {
      const report = await fault.run(host, BRIEF);
      // the problems include any label outside the fault's expected ones and any required
      // label no call got (scripts/faults/run.ts)
      assert.deepEqual(report.problems, [], JSON.stringify(report, null, 1));
    });
  }
}
