/**
 * Provisioning under backend faults (scripts/faults/backend/provision.ts) on both hosts:
 * svc_provision unreachable, past its deadline, 500, or answering something that is not a
 * provision state; svc_bot_attach cut or 500 after the upstream created the bot. Each run must
 * report 503 ProxyAuthUnavailable for the sign-ups during the fault, no bot left upstream by
 * them, exactly one bot created once the backend healed, and counts back at their baseline.
 * An answer `{}` made the gateway create (and delete again) an upstream bot for a reservation
 * it never had, and answer 404 BotRequestRefused, until src/routes/auth/provision.ts
 * `provisionStateOf` checked the shape.
 */
import assert from 'node:assert/strict';
import { provisionFaults } from '../../scripts/faults/backend/provision.ts';
import { provisionStateOf } from '../../src/routes/auth/provision.ts';
import { assertFaultPassed } from './backend_assertions.ts';

for (const fault of provisionFaults) {
  for (const host of fault.hosts) {
    Deno.test(`${fault.name} (${host})`, async () => {
      const report = await fault.run(host, { durationMs: 500 });
      assertFaultPassed(report);
      assert.ok(report.answers['503 ProxyAuthUnavailable'] > 0);
      assert.equal(report.answers['provisioned'], 1);
    });
  }
}

Deno.test('provisionStateOf: only a provision state', () => {
  const workspace = { id: 'w', name: 'W', role: 'owner' };
  assert.ok(provisionStateOf({ state: 'ready', workspace, bots: [] }));
  assert.ok(
    provisionStateOf({ state: 'reserved', workspace, bots: [], reservation: 'r', token: 't' }),
  );
  for (
    const shape of [
      {},
      null,
      'ready',
      [],
      { state: 'reserved', workspace, bots: [] },
      { state: 'ready', workspace: null, bots: [] },
      { state: 'ready', workspace, bots: {} },
      { state: 'done', workspace, bots: [] },
    ]
  ) {
    assert.equal(provisionStateOf(shape), null, JSON.stringify(shape));
  }
});
