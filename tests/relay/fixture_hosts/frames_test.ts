/**
 * The relay's pure pieces, table-driven: frame parsing per side, re-serialisation, result
 * rebuilding, UTF-8 sizes, close-reason safety, limits and upgrade matching.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  parseBrowserFrame,
  parseUpstreamFrame,
  rebuildResult,
  refusalFrame,
  serialiseSignal,
  serialiseSubscribe,
  utf8Length,
} from '../../../src/ws/frames.ts';
import { classifyUpgrade } from './fixtures/hosts.ts';
import {
  CLOSE,
  CLOSE_REASON_MAX_BYTES,
  passesThrough,
  relayLimits,
  safeCloseReason,
} from '../../../src/ws/mod.ts';

Deno.test('browser frames: accepted types and their fresh shapes', () => {
  const cases: [string, unknown][] = [
    ['{"type":"connection_init"}', { type: 'connection_init', payload: null }],
    ['{"type":"connection_init","payload":{"a":1},"x":2}', {
      type: 'connection_init',
      payload: { a: 1 },
    }],
    ['{"type":"ping","payload":null}', { type: 'ping', payload: null }],
    ['{"type":"pong"}', { type: 'pong', payload: null }],
    ['{"id":"1","type":"complete","payload":5}', { type: 'complete', id: '1' }],
    ['{"id":"1","type":"subscribe","payload":{"query":"{a}"}}', {
      type: 'subscribe',
      id: '1',
      payload: { query: '{a}' },
    }],
  ];
  for (const [text, message] of cases) {
    assert.deepEqual(parseBrowserFrame(text), { ok: true, message }, text);
  }
});

Deno.test('browser frames: every refusal names its fault', () => {
  const cases: [string | null, string][] = [
    [null, 'Binary frames are not part of graphql-transport-ws'],
    ['', 'Frame is not JSON'],
    ['null', 'Frame is not a graphql-transport-ws message'],
    ['"ping"', 'Frame is not a graphql-transport-ws message'],
    ['{"type":1}', 'Frame is not a graphql-transport-ws message'],
    ['{"type":"connection_ack"}', 'Frame type is not accepted from this side'],
    ['{"type":"error","id":"1","payload":[]}', 'Frame type is not accepted from this side'],
    ['{"type":"subscribe","payload":{}}', 'Frame needs a non-empty string id'],
    ['{"type":"complete","id":null}', 'Frame needs a non-empty string id'],
    ['{"type":"subscribe","id":"1","payload":[]}', 'Frame payload has the wrong shape'],
    ['{"type":"connection_init","payload":[1]}', 'Frame payload has the wrong shape'],
  ];
  for (const [text, reason] of cases) {
    assert.deepEqual(parseBrowserFrame(text), { ok: false, reason }, String(text));
  }
});

Deno.test('upstream frames: accepted and refused', () => {
  assert.deepEqual(parseUpstreamFrame('{"type":"connection_ack","payload":{"v":1}}'), {
    ok: true,
    message: { type: 'connection_ack', payload: { v: 1 } },
  });
  assert.deepEqual(parseUpstreamFrame('{"id":"a","type":"error","payload":[{"message":"m"}]}'), {
    ok: true,
    message: { type: 'error', id: 'a', payload: [{ message: 'm' }] },
  });
  const refused = [
    '{"type":"connection_init"}',
    '{"type":"subscribe","id":"1","payload":{}}',
    '{"type":"next","id":"1","payload":[]}',
    '{"type":"next","payload":{}}',
    '{"type":"error","id":"1","payload":[]}',
    '{"type":"error","id":"1","payload":[{"nomessage":1}]}',
  ];
  for (const text of refused) assert.equal(parseUpstreamFrame(text).ok, false, text);
});

Deno.test('re-serialisation keeps only the protocol fields', () => {
  assert.equal(serialiseSignal('pong', null), '{"type":"pong"}');
  assert.equal(
    serialiseSubscribe('7', { query: 'q', operationName: null, variables: null }),
    '{"id":"7","type":"subscribe","payload":{"query":"q"}}',
  );
  assert.equal(
    serialiseSubscribe('7', { query: 'q', operationName: 'Op', variables: { a: 1 } }),
    '{"id":"7","type":"subscribe","payload":{"query":"q","operationName":"Op","variables":{"a":1}}}',
  );
  assert.deepEqual(
    rebuildResult({
      data: { a: 1 },
      errors: [{ message: 'm', stack: 's', path: ['a'] }],
      other: 1,
    }),
    { data: { a: 1 }, errors: [{ message: 'm', path: ['a'] }] },
  );
  assert.deepEqual(JSON.parse(refusalFrame('9', 'BotNotAllowed', 'No')), {
    id: '9',
    type: 'error',
    payload: [{ message: 'No', extensions: { code: 'BotNotAllowed' } }],
  });
});

Deno.test('utf8Length equals TextEncoder for any string', () => {
  fc.assert(
    fc.property(
      fc.string({ unit: 'binary' }),
      (s) => utf8Length(s) === new TextEncoder().encode(s).length,
    ),
  );
});

Deno.test('close reasons: the token is cut out and the length capped at 123 bytes', () => {
  assert.equal(
    safeCloseReason('bad Bearer tok-123 here tok-123', 'tok-123'),
    'bad Bearer [redacted] here [redacted]',
  );
  assert.equal(safeCloseReason('no secret', null), 'no secret');
  const long = safeCloseReason('é'.repeat(200), null);
  assert.ok(new TextEncoder().encode(long).length <= CLOSE_REASON_MAX_BYTES);
  assert.equal(long, 'é'.repeat(61));
  fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (s) => {
    const out = safeCloseReason(s, null);
    return new TextEncoder().encode(out).length <= CLOSE_REASON_MAX_BYTES && s.startsWith(out);
  }));
});

Deno.test('close table: spec codes and the pass-through range', () => {
  assert.deepEqual([CLOSE.unauthorized.code, CLOSE.initTimeout.code, CLOSE.deadline.code], [
    4401,
    4408,
    1012,
  ]);
  assert.equal(CLOSE.tokenMissing.reason, 'svc proxy: token missing');
  assert.equal(CLOSE.upstreamDisconnected.reason, 'upstream disconnected');
  assert.deepEqual([3999, 4000, 4999, 5000, 1011].map(passesThrough), [
    false,
    true,
    true,
    false,
    false,
  ]);
});

Deno.test('limits: defaults, overrides, and bad values fall back', () => {
  const l = relayLimits();
  assert.deepEqual(
    [l.wsMaxSockets, l.wsPreAuthSockets, l.wsInitTimeoutMs, l.subscriptionsPerSocket],
    [256, 32, 5_000, 128],
  );
  assert.deepEqual([l.browserFrameBytes, l.upstreamFrameBytes], [1 << 20, 16 << 20]);
  assert.deepEqual([
    l.heldFramesBeforeUpstream,
    l.heldBytesBeforeUpstream,
    l.heldFramesBehindLookup,
  ], [
    64,
    512 * 1024,
    64,
  ]);
  assert.equal(l.socketLifeMs, 3_600_000);
  const o = relayLimits({ wsMaxSockets: 3, wsPreAuthSockets: -1, wsInitTimeoutMs: NaN });
  assert.deepEqual([o.wsMaxSockets, o.wsPreAuthSockets, o.wsInitTimeoutMs], [3, 32, 5_000]);
});

Deno.test("the test hosts' upgrade matching: path, upgrade header, subprotocol", () => {
  const p = '/svc/graphql';
  assert.equal(classifyUpgrade(p, p, 'websocket', 'graphql-transport-ws'), 'relay');
  assert.equal(classifyUpgrade(p, p, 'WebSocket', 'a, graphql-transport-ws'), 'relay');
  assert.equal(classifyUpgrade(p, p, 'websocket', 'graphql-ws'), 'refuse');
  assert.equal(classifyUpgrade(p, p, 'websocket', null), 'refuse');
  assert.equal(classifyUpgrade('/other', p, 'websocket', 'graphql-transport-ws'), 'unclaimed');
  assert.equal(classifyUpgrade(p, p, null, 'graphql-transport-ws'), 'unclaimed');
});
