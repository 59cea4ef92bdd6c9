/**
 * hosts/deno_parallel/connection_close.ts: the handler's `connection` header is left out exactly when the
 * request's Connection header lists `close` (Deno.serve then writes its own), on both answer shapes
 * the Deno.serve handler (`deno task serve:parallel`) writes: the core's answer headers, and the
 * answer of a route's Response, including one whose headers are immutable. The raw-socket test is
 * tests/http/oversize_socket_test.ts.
 */
import assert from 'node:assert/strict';
import {
  plainHeadersFor,
  requestCloses,
  responseFor,
} from '../../hosts/deno_parallel/connection_close.ts';
import { answerOf } from '../../src/host_api.ts';

const request = (connection?: string) =>
  new Request('http://gw.test/svc/graphql', {
    method: 'POST',
    headers: connection === undefined ? {} : { connection },
  });

Deno.test('requestCloses reads the close token of the Connection header', () => {
  assert.equal(requestCloses(request()), false);
  assert.equal(requestCloses(request('keep-alive')), false);
  assert.equal(requestCloses(request('closed')), false);
  assert.equal(requestCloses(request('close')), true);
  assert.equal(requestCloses(request('TE, Close')), true);
});

Deno.test('plainHeadersFor drops connection only when the request closes', () => {
  const oversize = { 'content-type': 'application/json', connection: 'close' };
  assert.deepEqual(plainHeadersFor(request('close'), oversize), {
    'content-type': 'application/json',
  });
  assert.equal(plainHeadersFor(request(), oversize), oversize);
  const common = { 'content-type': 'application/json' };
  assert.equal(plainHeadersFor(request('close'), common), common, 'no copy without the header');
});

Deno.test('responseFor drops connection from mutable and immutable headers', async () => {
  const mutable = answerOf(
    new Response('too large', { status: 413, headers: { connection: 'close' } }),
  );
  const kept = responseFor(request(), mutable);
  assert.equal(kept.headers.get('connection'), 'close');
  const dropped = responseFor(request('close'), mutable);
  assert.equal(dropped.headers.get('connection'), null);
  assert.equal(await dropped.text(), 'too large');

  // a fetched Response's headers are immutable: the answer is rebuilt around the same body
  const server = Deno.serve(
    { hostname: '127.0.0.1', port: 0, onListen: () => {} },
    () => new Response('from upstream', { status: 413, headers: { connection: 'close' } }),
  );
  try {
    const fetched = await fetch(`http://127.0.0.1:${server.addr.port}/`);
    assert.throws(() => fetched.headers.set('x-probe', '1'));
    assert.equal(fetched.headers.get('connection'), 'close');
    const rebuilt = responseFor(request('close'), answerOf(fetched));
    assert.notEqual(rebuilt, fetched);
    assert.equal(rebuilt.headers.get('connection'), null);
    assert.equal(rebuilt.status, 413);
    assert.equal(await rebuilt.text(), 'from upstream');
  } finally {
    await server.shutdown();
  }
});
