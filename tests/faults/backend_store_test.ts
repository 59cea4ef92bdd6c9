/**
 * The resource fence's shared store under backend faults (scripts/faults/backend/store.ts) on
 * both hosts: connections cut, calls past the 2 s deadline, 500, lookups of the wrong shape.
 * Each run must report requests decided from memory meanwhile (fresh ids forwarded, a known
 * foreign id refused 403 ResourceNotAllowed), no store call while it is left alone 5 s (the
 * stalled case found a queued write going out during that window; fixed in
 * src/admission/resource_store.ts), the named ids written once after healing, and the
 * process's counts back at their baseline.
 */
import assert from 'node:assert/strict';
import { storeFaults } from '../../scripts/faults/backend/store.ts';
import { assertFaultPassed } from './backend_assertions.ts';

for (const fault of storeFaults) {
  for (const host of fault.hosts) {
    Deno.test(`${fault.name} (${host})`, async () => {
      const report = await fault.run(host, { durationMs: 1_000 });
      assertFaultPassed(report);
      assert.equal(report.answers['403 ResourceNotAllowed'], 1);
      assert.equal(report.answers['named ok'], 4);
      assert.ok(report.answers['fenced ok'] > 0);
    });
  }
}
