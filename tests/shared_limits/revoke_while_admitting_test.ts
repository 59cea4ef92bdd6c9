/**
 * A revocation applied while a socket waits for its tenant slot (docs/operations.md "Limits across
 * processes"): with shared limits the slot is a backend call (svc_socket_open, up to the shared
 * deadline), and the revocation feed may bring the socket's bot back meanwhile. The socket must not
 * be admitted holding the revoked bot: it is refused 4401, its slot and its tracking given back.
 */
import assert from 'node:assert/strict';
import type { Core } from '../../src/core.ts';
import type { Gate, Session } from '../../src/admission/gate.ts';
import { createRevocations } from '../../src/admission/revocations.ts';
import { admitSocket } from '../../src/admission/socket_admission.ts';
import { applyRevocations } from '../../src/shared_limits/mod.ts';
import { CLOSE } from '../../src/ws/close_codes.ts';

function setup() {
  const session: Session = {
    botIds: new Set(['bot-a']),
    tenantKey: 'bots:t',
    subject: 'user-1',
  };
  const forgotten: string[] = [];
  const gate: Gate = {
    state: 'on',
    admit: () => Promise.resolve({ session }),
    forget: (subject) => void forgotten.push(subject),
  };
  const revocations = createRevocations();
  let released = 0;
  let grant: (release: (() => void) | null) => void = () => {};
  const asked = Promise.withResolvers<void>();
  const tenants = {
    takeRequest: () => true,
    openSocket: () =>
      new Promise<(() => void) | null>((resolve) => {
        grant = resolve;
        asked.resolve();
      }),
    size: 0,
  };
  const core = { gate, tenants, revocations } as unknown as Core;
  return {
    core,
    gate,
    revocations,
    forgotten,
    asked: asked.promise,
    grant: () => grant(() => void released++),
    refuse: () => grant(null),
    released: () => released,
  };
}

Deno.test('a bot revoked by the feed while the socket waits for its slot: refused 4401', async () => {
  const s = setup();
  const admission = admitSocket(s.core, { authToken: 'Bearer x' });
  await s.asked;
  applyRevocations(s.gate, s.revocations, [{ userId: 'user-1', botId: 'bot-a' }]);
  s.grant();
  const verdict = await admission;
  assert.deepEqual(verdict, {
    ok: false,
    closeCode: CLOSE.unauthorized.code,
    reason: CLOSE.unauthorized.reason,
  });
  assert.equal(s.released(), 1, 'the slot is given back');
  assert.equal(s.revocations.size, 0, 'nothing left tracked');
  assert.deepEqual(s.forgotten, ['user-1']);
});

Deno.test('the bot removed for every account while the socket waits: refused 4401', async () => {
  const s = setup();
  const admission = admitSocket(s.core, { authToken: 'Bearer x' });
  await s.asked;
  applyRevocations(s.gate, s.revocations, [{ userId: null, botId: 'bot-a' }]);
  s.grant();
  const verdict = await admission;
  assert.equal(verdict.ok, false);
  assert.equal(!verdict.ok && verdict.closeCode, CLOSE.unauthorized.code);
  assert.equal(s.released(), 1);
  assert.equal(s.revocations.size, 0);
});

Deno.test('no revocation meanwhile: admitted, tracked until released; a refused slot leaves nothing', async () => {
  const s = setup();
  const admission = admitSocket(s.core, { authToken: 'Bearer x' });
  await s.asked;
  applyRevocations(s.gate, s.revocations, [{ userId: 'user-1', botId: 'bot-other' }]);
  s.grant();
  const verdict = await admission;
  assert.ok(verdict.ok);
  assert.equal(s.revocations.size, 1);
  const ended: number[] = [];
  verdict.session.onRevoke?.((code) => void ended.push(code));
  s.revocations.revoke('user-1', 'bot-a');
  assert.deepEqual(ended, [CLOSE.unauthorized.code]);
  verdict.session.release();
  assert.equal(s.released(), 1);

  const t = setup();
  const refused = admitSocket(t.core, { authToken: 'Bearer x' });
  await t.asked;
  t.refuse();
  const second = await refused;
  assert.equal(!second.ok && second.closeCode, CLOSE.tooManyTenantSockets.code);
  assert.equal(t.revocations.size, 0);
});

Deno.test('the feed: a bot removed ends every account’s sockets holding it, forgets those accounts', () => {
  const revocations = createRevocations();
  const forgotten: string[] = [];
  const gate: Gate = {
    state: 'on',
    admit: () => Promise.reject(new Error('not called')),
    forget: (subject) => void forgotten.push(subject),
  };
  const ended: string[] = [];
  const sockets = [
    ['user-1', ['bot-a', 'bot-b']],
    ['user-2', ['bot-a']],
    ['user-3', ['bot-b']],
  ] as const;
  for (const [subject, bots] of sockets) {
    revocations.track(subject, new Set(bots)).onRevoke((code) => ended.push(`${subject} ${code}`));
  }
  applyRevocations(gate, revocations, [{ userId: null, botId: 'bot-a' }]);
  assert.deepEqual(ended.sort(), [
    `user-1 ${CLOSE.unauthorized.code}`,
    `user-2 ${CLOSE.unauthorized.code}`,
  ]);
  assert.deepEqual(forgotten.sort(), ['user-1', 'user-2']);
  assert.equal(revocations.size, 1, 'the socket of user-3 (bot-b only) stays');
});

Deno.test('a revocation after the admission answered, before the relay hands over its end: ended right after', async () => {
  const s = setup();
  const admission = admitSocket(s.core, { authToken: 'Bearer x' });
  await s.asked;
  s.grant();
  const verdict = await admission;
  assert.ok(verdict.ok);
  applyRevocations(s.gate, s.revocations, [{ userId: 'user-1', botId: 'bot-a' }]);
  const ended: number[] = [];
  verdict.session.onRevoke?.((code) => void ended.push(code));
  assert.deepEqual(ended, [], 'not inside the relay’s admission step');
  await Promise.resolve();
  assert.deepEqual(ended, [CLOSE.unauthorized.code]);
  assert.equal(s.revocations.size, 0);
});
