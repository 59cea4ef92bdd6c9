/**
 * Keepalive of the browser leg (docs/operations.md "Slow and vanished peers on the relay"), on both
 * hosts run as their own processes: a browser that completed the upgrade and its connection_init,
 * then vanished without a close (a raw TCP client that stops reading and never answers a ping), is
 * dropped within the keepalive period (WS_PING_INTERVAL_MS + WS_PONG_TIMEOUT_MS, 1 s + 1 s here,
 * plus a scheduling margin: see DROP_BOUND_MS) after it fell silent: the relay's socket gauge goes
 * back to zero and the tenant's socket slot is free again (TENANT_MAX_SOCKETS=1: a second socket is
 * refused 4429 while the vanished one holds it, admitted after).
 */
import assert from 'node:assert/strict';
import {
  type HostKind,
  type HostProcess,
  startHostProcess,
} from '../../../scripts/host_process.ts';
import { startFloodUpstream } from '../../../scripts/bench/flood_upstream.ts';
import { subscribe } from '../subscriber.ts';

const encoder = new TextEncoder();

/** A masked client text frame (RFC 6455 §5.2), payload under 126 bytes. */
function clientFrame(text: string): Uint8Array {
  const payload = encoder.encode(text);
  const mask = crypto.getRandomValues(new Uint8Array(4));
  const frame = new Uint8Array(6 + payload.length);
  frame.set([0x81, 0x80 | payload.length, ...mask]);
  payload.forEach((b, i) => frame[6 + i] = b ^ mask[i % 4]);
  return frame;
}

/**
 * Upgrades a raw TCP connection, sends connection_init, reads until the ack arrived, and from
 * then on reads nothing and answers nothing (the connection stays open: a vanished peer).
 */
async function vanishingBrowser(gateway: HostProcess): Promise<Deno.TcpConn> {
  const { hostname, port } = new URL(gateway.url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  await conn.write(encoder.encode(
    'GET /svc/graphql HTTP/1.1\r\nHost: ' + `${hostname}:${port}\r\n` +
      'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n' +
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n' +
      'Sec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n',
  ));
  let seen = '';
  const buffer = new Uint8Array(4096);
  while (!seen.includes('\r\n\r\n')) {
    const n = await conn.read(buffer);
    if (n === null) throw new Error('closed during the upgrade');
    seen += new TextDecoder().decode(buffer.subarray(0, n));
  }
  assert.match(seen, /^HTTP\/1\.1 101/);
  await conn.write(clientFrame('{"type":"connection_init","payload":{}}'));
  while (!seen.includes('connection_ack')) {
    const n = await conn.read(buffer);
    if (n === null) throw new Error('closed before the ack');
    seen += new TextDecoder().decode(buffer.subarray(0, n));
  }
  return conn;
}

async function sockets(gateway: HostProcess): Promise<number> {
  const text = await (await fetch(`${gateway.url}/svc/metrics`)).text();
  return Number(text.match(/^svc_relay_sockets (\d+)$/m)![1]);
}

const PING_INTERVAL_MS = 1_000;
const PONG_TIMEOUT_MS = 1_000;
/** How often the test reads the socket gauge (ms). */
const POLL_MS = 100;
/**
 * The drop's bound: the keepalive's promise (silent for the ping interval, then no answer within
 * the pong timeout: src/ws/heartbeat.ts on both hosts' `ws` legs) plus a margin for
 * scheduling: one poll of the gauge and a second for late timers, the close and the gauge's round
 * trip on a loaded 2-core machine (measured unloaded: Deno 1.9 s, Node 2.2 s in all).
 */
const DROP_BOUND_MS = PING_INTERVAL_MS + PONG_TIMEOUT_MS + POLL_MS + 1_000;

async function scenario(kind: HostKind): Promise<void> {
  const upstream = await startFloodUpstream();
  const gateway = await startHostProcess(kind, {
    env: {
      SVC_TOKEN: 'keepalive-test-master-token',
      SVC_API_BASE: upstream.url,
      HOST: '127.0.0.1',
      PORT: '0',
      METRICS: '1',
      TENANT_MAX_SOCKETS: '1',
      WS_PING_INTERVAL_MS: String(PING_INTERVAL_MS),
      WS_PONG_TIMEOUT_MS: String(PONG_TIMEOUT_MS),
    },
  });
  const wsUrl = `${gateway.url.replace(/^http/, 'ws')}/svc/graphql`;
  let conn: Deno.TcpConn | null = null;
  try {
    conn = await vanishingBrowser(gateway);
    // the gateway last heard from the browser before the ack came: silent from here at the latest
    const silentSince = performance.now();
    assert.equal(await sockets(gateway), 1);
    const refused = await subscribe(wsUrl);
    assert.equal(refused.admitted ? 0 : refused.code, 4429, 'the vanished browser holds the slot');
    while (await sockets(gateway) !== 0) {
      const silent = performance.now() - silentSince;
      assert.ok(silent < DROP_BOUND_MS, `still held after ${silent.toFixed(0)} ms of silence`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    console.log(`[${kind}] dropped after ${(performance.now() - silentSince).toFixed(0)} ms`);
    const after = await subscribe(wsUrl);
    assert.ok(after.admitted, 'the tenant slot is free again');
    after.subscriber.close();
    await after.subscriber.closed;
  } finally {
    conn?.close();
    await gateway.stop();
    await upstream.close();
  }
}

for (const kind of ['deno', 'node'] as const) {
  Deno.test({
    name: `[${kind}] a browser that vanishes without a close is dropped by the keepalive`,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: () => scenario(kind),
  });
}
