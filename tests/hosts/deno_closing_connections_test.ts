/**
 * hosts/deno_parallel/closing_connections.ts: the Deno.serve handler's (`deno task serve:parallel`) memory
 * of connections answered with `connection: close` holds at most its bound (the oldest forgotten
 * first), forgets an entry after its time, and a taken entry is gone (the drop ends that
 * connection). The dropped answer's body fails before its first byte. The raw-socket test is
 * tests/http/pipelined_after_413_test.ts.
 */
import assert from 'node:assert/strict';
import {
  ConnectionDropped,
  connectionKey,
  createClosingConnections,
  droppedAnswer,
} from '../../hosts/deno_parallel/closing_connections.ts';
import { DEFAULTS } from '../../src/config/defaults.ts';

Deno.test('closing connections: bounded, oldest forgotten first', () => {
  const closing = createClosingConnections(3, 1000, () => 0);
  for (const port of [1, 2, 3, 4, 5]) closing.add(`127.0.0.1:${port}`);
  assert.equal(closing.size, 3);
  assert.equal(closing.take('127.0.0.1:1'), false, 'the oldest went first');
  assert.equal(closing.take('127.0.0.1:2'), false);
  assert.equal(closing.take('127.0.0.1:3'), true);
  assert.equal(closing.take('127.0.0.1:3'), false, 'taken once');
  assert.equal(closing.size, 2);
});

Deno.test('closing connections: the default bound holds when filled past it', () => {
  const closing = createClosingConnections();
  for (let i = 0; i < DEFAULTS.closingConnectionsMax + 100; i++) closing.add(`10.0.0.1:${i}`);
  assert.equal(closing.size, DEFAULTS.closingConnectionsMax);
  assert.equal(closing.take('10.0.0.1:99'), false);
  assert.equal(closing.take(`10.0.0.1:${DEFAULTS.closingConnectionsMax + 99}`), true);
});

Deno.test('closing connections: an entry expires after its time', () => {
  let now = 0;
  const closing = createClosingConnections(10, 1000, () => now);
  closing.add('a:1');
  closing.add('a:2');
  now = 999;
  assert.equal(closing.take('a:1'), true);
  now = 1000;
  assert.equal(closing.take('a:2'), false);
});

Deno.test('connectionKey: address and port; none without a port', () => {
  const info = (remoteAddr: Deno.Addr) => ({ remoteAddr, completed: Promise.resolve() });
  assert.equal(
    connectionKey(info({ transport: 'tcp', hostname: '127.0.0.1', port: 4242 })),
    '127.0.0.1:4242',
  );
  assert.equal(connectionKey(info({ transport: 'unix', path: '/tmp/s' })), null);
});

Deno.test('droppedAnswer: the body fails before its first byte', async () => {
  const answer = droppedAnswer();
  await assert.rejects(answer.text(), ConnectionDropped);
});
