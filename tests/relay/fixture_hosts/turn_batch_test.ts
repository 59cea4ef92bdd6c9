/**
 * The browser leg on `ws` (src/ws/ws_socket.ts with src/ws/turn_batch.ts): text frames sent in
 * one turn are written in one buffer. A real `ws` client must read every frame whole and in
 * order at every header size (7-bit, 16-bit and 64-bit lengths), UTF-8 beyond ASCII, lone surrogates
 * at the edges of two frames (each its own U+FFFD, as `ws` would write them apart), and a close
 * asked for in the same turn after them; the held bytes count as unsent until they are written.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket as WsWebSocket, WebSocketServer } from 'ws';
import { adaptWsSocket } from '../../../src/ws/mod.ts';
import type { UpstreamSocket } from '../../../src/ws/socket.ts';

/** A `ws` server on a free port whose one connection is handed to `serve`, adapted. */
async function server(serve: (socket: UpstreamSocket) => void) {
  const wss = new WebSocketServer({ noServer: true });
  const httpServer = http.createServer();
  httpServer.on('upgrade', (req, sock, head) => {
    wss.handleUpgrade(req, sock, head, (ws) => serve(adaptWsSocket(ws)));
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}`,
    close: () => {
      wss.close();
      return new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

/** Every text message a client reads, and how it was closed. */
function read(url: string): Promise<{ texts: string[]; code: number; reason: string }> {
  const client = new WsWebSocket(url);
  const texts: string[] = [];
  return new Promise((resolve, reject) => {
    client.on('message', (data, isBinary) => {
      assert.equal(isBinary, false);
      texts.push(String(data));
    });
    client.on('close', (code, reason) => resolve({ texts, code, reason: String(reason) }));
    client.on('error', reject);
  });
}

Deno.test('frames sent in one turn reach a ws client whole, in order, before the close', async () => {
  const sent = [
    '',
    'a',
    'x'.repeat(125), // the largest 7-bit length
    'y'.repeat(126), // the smallest 16-bit length
    'é€😀 and more',
    'z'.repeat(0xffff), // the largest 16-bit length
    '\ud800 lone', // written as U+FFFD, as Buffer.from writes it
    'ends on a lone high surrogate \ud800', // and the next begins with a lone low one: the two
    '\udc00 begins on a lone low surrogate', // must stay two U+FFFD, never join into one pair
    'w'.repeat(0x10000 + 7), // a 64-bit length
    '{"id":"1","type":"next","payload":{}}',
  ];
  let unsent: number[] = [];
  const host = await server((socket) => {
    unsent = sent.map((text) => {
      socket.send(text);
      return socket.bufferedAmount();
    });
    socket.close(4000, 'done');
  });
  try {
    const got = await read(host.url);
    assert.deepEqual(got.texts, sent.map((t) => t.replace(/[\ud800\udc00]/g, '\ufffd')));
    assert.equal(got.code, 4000);
    assert.equal(got.reason, 'done');
    // every frame's bytes counted while held: header + UTF-8 payload, growing frame by frame
    const header = (n: number) => (n < 126 ? 2 : n < 0x10000 ? 4 : 10);
    let total = 0;
    const want = sent.map((text) => {
      const n = new TextEncoder().encode(text).length;
      return total += header(n) + n;
    });
    assert.deepEqual(unsent, want);
  } finally {
    await host.close();
  }
});

Deno.test('frames of separate turns each arrive, and none after the socket is gone', async () => {
  const host = await server((socket) => {
    socket.send('first');
    setTimeout(() => {
      socket.send('second');
      setTimeout(() => {
        socket.send('third');
        socket.terminate!(); // dropped with the connection: never written
      }, 10);
    }, 10);
  });
  try {
    const got = await read(host.url);
    assert.deepEqual(got.texts, ['first', 'second']);
    assert.equal(got.code, 1006);
  } finally {
    await host.close();
  }
});

/**
 * Frames a raw client reads: it upgrades, sends one masked text frame and a masked close frame
 * in one write, then records every frame the server sends (opcode, payload) until it hangs up.
 */
async function rawPeerClose(url: string): Promise<{ opcode: number; payload: Uint8Array }[]> {
  const { hostname, port } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  const enc = new TextEncoder();
  await conn.write(enc.encode(
    `GET / HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
  ));
  const masked = (opcode: number, payload: Uint8Array) => {
    const out = new Uint8Array(6 + payload.length); // payloads here are under 126 bytes
    out[0] = 0x80 | opcode;
    out[1] = 0x80 | payload.length;
    for (let i = 0; i < payload.length; i++) out[6 + i] = payload[i]; // mask key 0
    return out;
  };
  let bytes = new Uint8Array(0);
  const buf = new Uint8Array(64 * 1024);
  const append = (n: number) => {
    const next = new Uint8Array(bytes.length + n);
    next.set(bytes);
    next.set(buf.subarray(0, n), bytes.length);
    bytes = next;
  };
  // wait for the 101 before sending frames
  while (!new TextDecoder().decode(bytes).includes('\r\n\r\n')) {
    const n = await conn.read(buf);
    if (n === null) throw new Error('no upgrade answer');
    append(n);
  }
  bytes = bytes.subarray(new TextDecoder().decode(bytes).indexOf('\r\n\r\n') + 4);
  const text = masked(0x1, enc.encode('hello'));
  const close = masked(0x8, new Uint8Array([0x03, 0xe8])); // 1000
  const both = new Uint8Array(text.length + close.length);
  both.set(text);
  both.set(close, text.length);
  await conn.write(both);
  for (;;) {
    const n = await conn.read(buf).catch(() => null);
    if (n === null) break;
    append(n);
  }
  conn.close();
  const frames: { opcode: number; payload: Uint8Array }[] = [];
  for (let at = 0; at + 2 <= bytes.length;) {
    let len = bytes[at + 1] & 0x7f;
    let head = 2;
    if (len === 126) [len, head] = [(bytes[at + 2] << 8) | bytes[at + 3], 4];
    frames.push({ opcode: bytes[at] & 0x0f, payload: bytes.subarray(at + head, at + head + len) });
    at += head + len;
  }
  return frames;
}

Deno.test('a peer that closes in the turn its frame arrives gets no data frame after the close', async () => {
  const host = await server((socket) => {
    // the relay answers a browser frame in the same turn: the reply is held for the turn's end,
    // and `ws` answers the browser's close (which came in the same read) before it
    socket.listen({ socketMessage: () => socket.send('{"type":"pong"}'), socketClosed() {} });
  });
  try {
    const frames = await rawPeerClose(host.url);
    const closeAt = frames.findIndex((f) => f.opcode === 0x8);
    assert.ok(closeAt >= 0, 'the server answered the close');
    assert.deepEqual(
      frames.slice(closeAt + 1).map((f) => f.opcode),
      [],
      'nothing after the close frame (RFC 6455 5.5.1)',
    );
  } finally {
    await host.close();
  }
});
