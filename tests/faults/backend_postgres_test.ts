/**
 * PostgreSQL restarted while traffic flows (scripts/faults/backend/postgres_restart.ts) on both
 * hosts: fresh sessions get 503 ProxyAuthUnavailable while it is down and are admitted once it is
 * back, the cached owner is served throughout, the resource store's batched writes resume after
 * their 5 s, every named id ends stored for its bot (the one written before the restart
 * survived it) and each was written to the database exactly once; counts back at baseline.
 */
import assert from 'node:assert/strict';
import { postgresRestartFault } from '../../scripts/faults/backend/postgres_restart.ts';
import { assertFaultPassed } from './backend_assertions.ts';

for (const host of postgresRestartFault.hosts) {
  Deno.test(`${postgresRestartFault.name} (${host})`, async () => {
    const report = await postgresRestartFault.run(host, { durationMs: 1_000 });
    assertFaultPassed(report);
    assert.ok(report.answers['503 ProxyAuthUnavailable'] > 0);
    assert.ok(report.answers['fresh ok'] > 0);
    assert.equal(report.answers['named ok'], 8);
  });
}
