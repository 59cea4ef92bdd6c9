/**
 * SPEC "Authentication" 4: "Each attempt pauses a fixed interval". Every kind of POST /session
 * attempt (right password, wrong password, a body without a password, a body that is not JSON,
 * an attempt while the client is throttled) waits for the panel's pause of `pauseMs` before the
 * throttle is asked or anything is answered. The pause is held open by the test, so the order
 * is observed without measuring time.
 */
import assert from 'node:assert/strict';
import type { Core } from '../../src/core.ts';
import { resolveConfig } from '../../src/config/resolve.ts';
import type { AdminContext } from '../../src/routes/admin/context.ts';
import { unlock } from '../../src/routes/admin/session_route.ts';
import { untrackedState } from '../../src/http/request_state.ts';
import { createThrottle } from '../../src/routes/admin/throttle.ts';
import { PASSWORD } from './helpers.ts';

const PAUSE_MS = 1_234;
const THROTTLE = { freeAttempts: 3, baseWaitMs: 60_000, capMs: 60_000, pauseMs: PAUSE_MS };

/** A panel context whose pause is held until the test releases it, and whose throttle counts. */
function heldContext() {
  const config = resolveConfig({ adminThrottle: THROTTLE }, { ADMIN_PASSWORD: PASSWORD });
  const inner = createThrottle(config.admin.throttle, null);
  const held: { ms: number; release: () => void }[] = [];
  let asked = 0;
  const ctx: AdminContext = {
    core: { config } as unknown as Core,
    db: null,
    throttle: {
      take: (key) => {
        asked += 1;
        return inner.take(key);
      },
      clear: (key) => inner.clear(key),
    },
    pause: (ms) => new Promise<void>((release) => held.push({ ms, release })),
    upstream: () => null,
  };
  return { ctx, held, asked: () => asked };
}

function attempt(body: string): Request {
  return new Request('http://127.0.0.1/svc/admin/session', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
}

/** Lets every queued task and timer of 0 ms run (the handler gets as far as it can). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test('admin password: every attempt pauses before the throttle and the answer', async () => {
  const { ctx, held, asked } = heldContext();
  const kinds: [string, string, number][] = [
    ['right password', JSON.stringify({ password: PASSWORD }), 200],
    ['wrong password', JSON.stringify({ password: 'not-the-password-at-all' }), 401],
    ['no password field', JSON.stringify({ pass: PASSWORD }), 401],
    ['not JSON', 'password=' + PASSWORD, 401],
    // three counted failures since the right password cleared the key: the client now waits
    ['throttled', JSON.stringify({ password: PASSWORD }), 429],
  ];
  for (const [kind, body, status] of kinds) {
    const before = asked();
    let answered = false;
    const answer = unlock({
      ctx,
      request: attempt(body),
      state: untrackedState(),
      conn: { remoteAddress: '10.1.1.1' },
      path: '/session',
      id: '',
    }).then((response) => {
      answered = true;
      return response;
    });
    await settle();
    assert.equal(held.length, 1, `${kind}: the attempt is paused`);
    assert.equal(held[0].ms, PAUSE_MS, `${kind}: the fixed interval`);
    assert.equal(answered, false, `${kind}: no answer during the pause`);
    assert.equal(asked(), before, `${kind}: the throttle is asked after the pause`);
    held.shift()!.release();
    const response = await answer;
    await response.body?.cancel();
    assert.equal(response.status, status, kind);
    assert.equal(asked(), before + 1, kind);
  }
});
