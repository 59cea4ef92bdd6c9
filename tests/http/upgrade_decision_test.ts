/**
 * The upgrade decision on the relay path (src/routes/upgrade.ts; SPEC "Checks before any route"
 * 1-2 for the handshake, "WebSocket relay"): unclaimed off the path, 403 for a refused Host or
 * Origin or a handshake without graphql-transport-ws, 503 with retry-after when the relay says so,
 * else accepted with the subprotocol. The answer is plain text with the security headers, never
 * cached. Nothing is upgraded on a refusal: the relay is asked only whether it has room, and only
 * once the caller passed.
 */
import assert from 'node:assert/strict';
import { resolveConfig } from '../../src/config/resolve.ts';
import { decideUpgrade } from '../../src/routes/upgrade.ts';
import { RefusedValueLog } from '../../src/observability/refused_values.ts';
import type { Relay } from '../../src/ws/types.ts';
import { SECURITY_HEADERS } from '../../src/http/security_headers.ts';

const config = resolveConfig({ token: 'secret-token', upstream: 'https://api.example' }, {
  ALLOWED_ORIGINS: 'https://app.example',
});

/** A relay that answers `admitUpgrade` with `full` and records every call. */
function relayAnswering(full: ReturnType<Relay['admitUpgrade']>) {
  const calls: string[] = [];
  const relay = {
    admitUpgrade: () => (calls.push('admitUpgrade'), full),
    accept: () => void calls.push('accept'),
    stats: () => ({}) as ReturnType<Relay['stats']>,
    totals: () => ({ heldFrames: 0 }),
    closeAll: () => Promise.resolve(),
  } satisfies Relay;
  return { relay, calls };
}

function handshake(path: string, headers: Record<string, string>) {
  return {
    method: 'GET',
    url: `http://127.0.0.1:8000${path}`,
    headers: new Headers({
      host: '127.0.0.1:8000',
      origin: 'https://app.example',
      'sec-websocket-protocol': 'graphql-transport-ws',
      ...headers,
    }),
    body: null,
  };
}

function decide(
  path: string,
  headers: Record<string, string>,
  full: ReturnType<Relay['admitUpgrade']> = null,
) {
  const { relay, calls } = relayAnswering(full);
  const lines: string[] = [];
  const log = new RefusedValueLog((line) => lines.push(line), {
    windowMs: 60_000,
    linesPerWindow: 20,
    valueChars: 80,
  });
  return { decision: decideUpgrade(config, relay, log, handshake(path, headers)), calls, lines };
}

function assertPlain(decision: ReturnType<typeof decideUpgrade>, status: number, text: string) {
  assert.equal(decision.kind, 'refuse');
  if (decision.kind !== 'refuse') return;
  assert.equal(decision.answer.status, status);
  assert.equal(decision.answer.body, text);
  assert.equal(decision.answer.headers['content-type'], 'text/plain; charset=utf-8');
  assert.equal(decision.answer.headers['cache-control'], 'no-store');
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
    assert.equal(decision.answer.headers[name.toLowerCase()], value, name);
  }
}

Deno.test('off the relay path the upgrade is not claimed, and the relay is not asked', () => {
  const { decision, calls } = decide('/elsewhere', {});
  assert.deepEqual(decision, { kind: 'unclaimed' });
  assert.deepEqual(calls, []);
});

Deno.test('a listed caller offering graphql-transport-ws is accepted with it', () => {
  const { decision, calls } = decide(config.wsPath, {});
  assert.deepEqual(decision, { kind: 'accept', protocol: 'graphql-transport-ws' });
  assert.deepEqual(calls, ['admitUpgrade']);
});

Deno.test('a refused Host or Origin is 403 Forbidden, logged, and the relay is not asked', () => {
  const refused: Record<string, string>[] = [{ host: 'evil.example' }, {
    origin: 'https://evil.example',
  }];
  for (const headers of refused) {
    const { decision, calls, lines } = decide(config.wsPath, headers);
    assertPlain(decision, 403, 'Forbidden');
    assert.deepEqual(calls, []);
    assert.equal(lines.length, 1);
    assert.match(lines[0], /evil\.example/);
  }
});

Deno.test('a handshake without graphql-transport-ws is 403, and the relay is not asked', () => {
  for (const protocol of ['graphql-ws', '']) {
    const { decision, calls } = decide(config.wsPath, { 'sec-websocket-protocol': protocol });
    assertPlain(decision, 403, 'Forbidden');
    assert.deepEqual(calls, []);
  }
});

Deno.test('a full relay is 503, with retry-after only when the relay gives one', () => {
  const busy = decide(config.wsPath, {}, { status: 503, reason: 'memory', retryAfterSeconds: 5 });
  assertPlain(busy.decision, 503, 'Service Unavailable');
  if (busy.decision.kind === 'refuse') {
    assert.equal(busy.decision.answer.headers['retry-after'], '5');
  }
  assert.deepEqual(busy.calls, ['admitUpgrade']);
  const full = decide(config.wsPath, {}, { status: 503, reason: 'sockets' });
  assertPlain(full.decision, 503, 'Service Unavailable');
  if (full.decision.kind === 'refuse') {
    assert.equal(full.decision.answer.headers['retry-after'], undefined);
  }
});
