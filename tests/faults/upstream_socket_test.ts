/**
 * The upstream's socket faults (scripts/faults/upstream/socket.ts), each run briefly on both
 * hosts (CI's short version of `deno task soak`): subscribers got close 1012, calls while the
 * upstream was down 504, new subscriptions and calls worked once it was whole again, and every
 * count came back to its baseline.
 */
import assert from 'node:assert/strict';
import { upstreamSocketFaults } from '../../scripts/faults/upstream/socket.ts';

const BRIEF = { durationMs: 1_500 };

for (const fault of upstreamSocketFaults) {
  for (const host of fault.hosts) {
    Deno.test(`[${host}] ${fault.name}`, async () => {
      const report = await fault.run(host, BRIEF);
      assert.deepEqual(report.problems, [], JSON.stringify(report, null, 1));
      assert.ok(report.answers['subscriber close 1012'] > 0);
      assert.ok(report.answers['after: ok'] > 0);
    });
  }
}
