/**
 * Relay flow control (`src/ws/flow.ts`; docs/operations.md "Slow and vanished peers on the relay")
 * with small marks, on both test hosts, against a scripted `ws` upstream that streams as fast as
 * its socket drains, or that stops reading:
 * - a browser that stops reading: where the upstream leg can pause (`ws` host) it is paused, the
 *   upstream stops sending, and on resume every frame arrives in order; where it cannot (the Deno
 *   test host's Web WebSocket leg) the unsent bytes pass the cap and the socket closes 1013;
 * - an upstream that stops reading the browser's frames: the browser is paused where it can be
 *   (`ws`), held in the leg's buffer where it cannot (Deno), and the socket closes 1013 'Upstream
 *   too slow to take frames' at the stall timeout or the cap; either way nothing is left counted;
 * - a leg paused while the relay awaits its pong is not dropped as dead for the pong it cannot
 *   read, and a paused browser is not pinged at all: the stall closes it (`ws` host).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket as WsWebSocket, WebSocketServer } from 'ws';
import { minimumBufferCap, relayLimits } from '../../../src/ws/mod.ts';
import type { RelayDeps } from '../../../src/ws/mod.ts';
import { initialisedClient } from './fixtures/clients.ts';
import { testBothHosts, withWorld } from './fixtures/setup.ts';
import { waitFor } from './fixtures/upstream.ts';

/** Small marks: 16 KiB high, 4 KiB low; the cap at its floor (64 KiB frames: 144 KiB). */
const LIMITS = {
  wsHighWaterBytes: 16 * 1024,
  wsLowWaterBytes: 4 * 1024,
  upstreamFrameBytes: 64 * 1024,
  wsBufferCapBytes: 1,
  wsFlowPollMs: 5,
};

/** A scripted upstream: acknowledges, then per `mode` floods every subscription or stops reading. */
async function startUpstream(mode: 'flood' | 'deaf') {
  // `socket` is the last upstream socket, read at assertion time; `halted` stops the flood
  const state = { sent: 0, ended: false, halted: false, socket: null as WsWebSocket | null };
  const server = http.createServer();
  const wss = new WebSocketServer({ server, perMessageDeflate: false });
  wss.on('connection', (ws: WsWebSocket) => {
    state.socket = ws;
    ws.on('error', () => {});
    ws.on('close', () => state.ended = true);
    ws.on('message', (data: Uint8Array) => {
      const frame = JSON.parse(new TextDecoder().decode(data));
      if (frame.type === 'connection_init') {
        ws.send('{"type":"connection_ack"}');
        if (mode === 'deaf') ws.pause();
      } else if (frame.type === 'subscribe') flood(ws, frame.id);
      else if (frame.type === 'complete') completed.add(frame.id);
    });
  });
  const pad = 'x'.repeat(1000);
  // a subscription the relay completed stops, as a real upstream's would
  const completed = new Set<string>();
  const flood = (ws: WsWebSocket, id: string) => {
    if (ws.readyState !== WsWebSocket.OPEN || state.halted || completed.has(id)) return;
    while (ws.bufferedAmount < 64 * 1024) {
      ws.send(`{"id":"${id}","type":"next","payload":{"data":{"n":${state.sent++},"p":"${pad}"}}}`);
    }
    setTimeout(() => flood(ws, id), 1);
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`,
    state,
    async close() {
      for (const ws of wss.clients) ws.terminate();
      await new Promise((resolve) => wss.close(resolve));
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Waits until `count()` has not changed for `quietMs` (checked every 50 ms) and returns it; throws
 * when it is still changing after `deadlineMs`.
 */
async function settledCount(count: () => number, quietMs: number, deadlineMs: number) {
  const start = Date.now();
  let last = count();
  let since = Date.now();
  while (Date.now() - since < quietMs) {
    if (Date.now() - start > deadlineMs) throw new Error(`still changing after ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = count();
    if (now !== last) [last, since] = [now, Date.now()];
  }
  return last;
}

/** A `ws` browser that can stop reading; counts next frames and checks their order. */
async function pausableBrowser(url: string) {
  const ws = new WsWebSocket(url, 'graphql-transport-ws', { perMessageDeflate: false });
  const seen = { received: 0, last: -1, outOfOrder: 0 };
  const acked = Promise.withResolvers<void>();
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: String(reason) }))
  );
  ws.on('error', () => {});
  ws.on('message', (data) => {
    const frame = JSON.parse(String(data));
    if (frame.type === 'connection_ack') return acked.resolve();
    if (frame.type !== 'next') return;
    if (frame.payload.data.n !== seen.last + 1) seen.outOfOrder++;
    seen.last = frame.payload.data.n;
    seen.received++;
  });
  ws.on('open', () => ws.send('{"type":"connection_init"}'));
  await acked.promise;
  return { ws, seen, closed };
}

const withLimits = (stalls: string[], extra: Record<string, number> = {}) => (b: RelayDeps) => ({
  ...b,
  limits: { ...b.limits, ...LIMITS, ...extra },
  stallClosed: (leg: string, cause: string) => void stalls.push(`${leg} ${cause}`),
});

Deno.test('the cap never sits below the high-water mark plus one upstream frame', () => {
  const limits = relayLimits(LIMITS);
  assert.equal(limits.wsBufferCapBytes, minimumBufferCap(limits));
  assert.equal(limits.wsBufferCapBytes, 16 * 1024 + 64 * 1024 + 64 * 1024);
  assert.equal(relayLimits({ wsLowWaterBytes: 10, wsHighWaterBytes: 5 }).wsLowWaterBytes, 5);
});

testBothHosts(
  'a browser that stops reading pauses the upstream leg, or is closed 1013 past the cap',
  async (kind) => {
    const upstream = await startUpstream('flood');
    const stalls: string[] = [];
    try {
      await withWorld(kind, {
        upstreamUrl: upstream.url,
        deps: withLimits(stalls, { wsStallTimeoutMs: 60_000 }),
      }, async ({ host }) => {
        const b = await pausableBrowser(host.url);
        b.ws.send('{"id":"a","type":"subscribe","payload":{"query":"subscription { n }"}}');
        b.ws.pause();
        if (kind === 'deno') {
          // Deno's WebSocket client cannot stop reading: the unsent bytes reach the cap
          await waitFor(() => stalls.length === 1, 10_000);
          assert.deepEqual(stalls, ['browser cap']);
          b.ws.resume();
          const close = await b.closed;
          assert.deepEqual(close, {
            code: 1013,
            reason: 'Client too slow: unsent frames over the limit',
          });
          assert.equal(b.seen.outOfOrder, 0);
          await waitFor(() => upstream.state.ended, 3_000);
          return;
        }
        await waitFor(() => host.relay.stats().pausedLegs === 1);
        // the kernel's buffers between the legs fill first (slower on a loaded machine): wait
        // until the upstream has stopped sending, then hold that it stays stopped; a relay that
        // reads on while paused never lets it stop
        const sent = await settledCount(() => upstream.state.sent, 300, 15_000);
        await new Promise((resolve) => setTimeout(resolve, 300));
        // the upstream's own unsent bytes, read now on its open socket: it cannot send because
        // the relay stopped reading its leg (a relay that also completed the stream upstream
        // leaves none unsent; one that reads on while paused is caught by the sent count)
        assert.equal(upstream.state.socket?.readyState, WsWebSocket.OPEN, 'the leg is open');
        const unsent = upstream.state.socket?.bufferedAmount ?? 0;
        assert.ok(unsent >= 64 * 1024, `the upstream's socket holds ${unsent} unsent bytes`);
        assert.equal(upstream.state.sent, sent, 'backpressure reached the upstream');
        b.ws.resume();
        await waitFor(() => b.seen.received > sent + 1000, 10_000);
        // the upstream stops; once drained, the browser holds every frame it sent
        upstream.state.halted = true;
        await waitFor(() => b.seen.received >= upstream.state.sent, 10_000).catch(() => {});
        assert.equal(b.seen.received, upstream.state.sent, 'none lost');
        assert.equal(b.seen.outOfOrder, 0, 'every frame, in order');
        assert.deepEqual(stalls, []);
        b.ws.close(1000);
        await b.closed;
      });
    } finally {
      await upstream.close();
    }
  },
);

testBothHosts(
  'an upstream that stops reading closes the socket 1013 (the browser paused where it can be)',
  async (kind) => {
    const upstream = await startUpstream('deaf');
    const stalls: string[] = [];
    try {
      await withWorld(kind, {
        upstreamUrl: upstream.url,
        deps: withLimits(stalls, { wsStallTimeoutMs: 500 }),
      }, async ({ host }) => {
        const c = await initialisedClient(host.url);
        const ping = JSON.stringify({ type: 'ping', payload: { pad: 'y'.repeat(16 * 1024) } });
        let sent = 0;
        let paused = false;
        // the browser sends until the relay gives up on the upstream; its frames pile up in the
        // leg's buffer. It stops there: Deno's upgraded socket sends its close frame once the
        // browser has been quiet (src/ws/socket.ts adaptWebSocket), and a browser still sending
        // when the linger ends sees the connection dropped instead (src/ws/README.md)
        while (c.ws.readyState === WebSocket.OPEN && sent < 4000 && stalls.length === 0) {
          c.send(ping);
          sent++;
          paused ||= host.relay.stats().pausedLegs === 1;
          if (sent % 50 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
        }
        const close = await c.closed;
        assert.deepEqual(close, { code: 1013, reason: 'Upstream too slow to take frames' });
        assert.equal(stalls.length, 1);
        assert.match(stalls[0], /^upstream (timeout|cap)$/);
        if (kind === 'ws') assert.ok(paused, 'the browser leg was paused');
      });
    } finally {
      await upstream.close();
    }
  },
);

/**
 * A `ws` upstream that acknowledges and then says nothing; it holds its pong to the relay's first
 * WebSocket ping until `releasePong` (later pings are answered at once).
 */
async function startPongHoldingUpstream() {
  const state = { pinged: false, ended: false };
  const release = Promise.withResolvers<void>();
  const server = http.createServer();
  const wss = new WebSocketServer({ server, autoPong: false, perMessageDeflate: false });
  wss.on('connection', (ws: WsWebSocket) => {
    ws.on('error', () => {});
    ws.on('close', () => state.ended = true);
    ws.on('message', (data: Uint8Array) => {
      const frame = JSON.parse(new TextDecoder().decode(data));
      if (frame.type === 'connection_init') ws.send('{"type":"connection_ack"}');
    });
    ws.on('ping', () => {
      const first = !state.pinged;
      state.pinged = true;
      if (!first) return ws.pong();
      void release.promise.then(() => ws.readyState === WsWebSocket.OPEN && ws.pong());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`,
    state,
    releasePong: () => release.resolve(),
    async close() {
      for (const ws of wss.clients) ws.terminate();
      await new Promise((resolve) => wss.close(resolve));
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

Deno.test('a leg paused while its pong is awaited is not dropped as dead [ws host]', async () => {
  const upstream = await startPongHoldingUpstream();
  const stalls: string[] = [];
  const PONG_TIMEOUT_MS = 3_000;
  try {
    await withWorld('ws', {
      upstreamUrl: upstream.url,
      deps: (b) => ({
        ...withLimits(stalls, {
          wsPingIntervalMs: 100,
          wsPongTimeoutMs: PONG_TIMEOUT_MS,
          wsStallTimeoutMs: 60_000,
          wsBufferCapBytes: 64 * 1024 * 1024,
        })(b),
        // every subscribe is refused with a 64 KiB sentence: frames for the browser that the
        // relay writes itself, so the browser's unsent bytes pass the mark with the upstream silent
        checkSubscribe: () => ({
          ok: false,
          code: 'ProxyHandlerFailed',
          message: 'r'.repeat(65536),
        }),
      }),
    }, async ({ host }) => {
      const b = await pausableBrowser(host.url);
      // the browser keeps talking (a complete for an id never opened: nothing goes upstream), so
      // its own keepalive never suspects it while it does not read
      const chatter = setInterval(() => b.ws.send('{"id":"none","type":"complete"}'), 20);
      try {
        // the relay pinged the silent upstream; its pong is held
        await waitFor(() => upstream.state.pinged, 5_000);
        b.ws.pause();
        for (let i = 0; host.relay.stats().pausedLegs === 0; i++) {
          assert.ok(
            i < 2_000,
            `the upstream leg was never paused: ${host.logs.join(' | ')} ${b.ws.readyState}`,
          );
          b.ws.send(JSON.stringify({ id: `s${i}`, type: 'subscribe', payload: { query: 'q' } }));
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        // the pong goes out now, while the relay does not read the leg; then the pong wait passes
        upstream.releasePong();
        await new Promise((resolve) => setTimeout(resolve, PONG_TIMEOUT_MS + 500));
        assert.ok(
          !host.logs.some((line) => line.includes('upstream dropped')),
          `a paused leg was dropped: ${host.logs.join(' | ')}`,
        );
        assert.equal(host.relay.stats().upstreamSockets, 1);
        b.ws.resume();
        await waitFor(() => host.relay.stats().pausedLegs === 0, 10_000);
      } finally {
        clearInterval(chatter);
      }
      b.ws.close(1000);
      assert.equal((await b.closed).code, 1000);
      assert.deepEqual(stalls, []);
      await waitFor(() => upstream.state.ended, 3_000);
    });
  } finally {
    await upstream.close();
  }
});

Deno.test('a browser paused by flow control is not pinged: the stall closes it, not the keepalive [ws host]', async () => {
  // an upstream that stops reading after its ack and keeps talking (protocol pongs every 20 ms,
  // so its own leg stays heard from)
  const server = http.createServer();
  const wss = new WebSocketServer({ server, perMessageDeflate: false });
  wss.on('connection', (ws: WsWebSocket) => {
    ws.on('error', () => {});
    const talk = setInterval(() => ws.send('{"type":"pong"}'), 20);
    ws.on('close', () => clearInterval(talk));
    ws.once('message', () => {
      ws.send('{"type":"connection_ack"}');
      ws.pause();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const upstreamUrl = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  const stalls: string[] = [];
  try {
    await withWorld('ws', {
      upstreamUrl,
      deps: withLimits(stalls, {
        wsPingIntervalMs: 50,
        wsPongTimeoutMs: 50,
        wsStallTimeoutMs: 1_500,
      }),
    }, async ({ host }) => {
      const b = await pausableBrowser(host.url);
      const ping = JSON.stringify({ type: 'ping', payload: { pad: 'y'.repeat(16 * 1024) } });
      for (let i = 0; host.relay.stats().pausedLegs === 0; i++) {
        assert.ok(i < 4_000, 'the browser leg was never paused');
        b.ws.send(ping);
        if (i % 50 === 49) await new Promise((resolve) => setTimeout(resolve, 5));
      }
      // the browser now says nothing; a ping it answered could not be read while it is paused
      assert.deepEqual(await b.closed, { code: 1013, reason: 'Upstream too slow to take frames' });
      assert.deepEqual(stalls, ['upstream timeout']);
    });
  } finally {
    for (const ws of wss.clients) ws.terminate();
    await new Promise((resolve) => wss.close(resolve));
    await new Promise((resolve) => server.close(resolve));
  }
});

Deno.test('a stall-closed socket whose browser never reads still counts against wsMaxSockets until it is gone [deno host]', async () => {
  const upstream = await startUpstream('flood');
  const stalls: string[] = [];
  try {
    await withWorld('deno', {
      upstreamUrl: upstream.url,
      deps: withLimits(stalls, { wsStallTimeoutMs: 60_000, wsMaxSockets: 1 }),
    }, async ({ host }) => {
      const b = await pausableBrowser(host.url);
      b.ws.send('{"id":"a","type":"subscribe","payload":{"query":"subscription { n }"}}');
      b.ws.pause(); // never reads again: Deno cannot deliver the close frame
      await waitFor(() => stalls.length === 1, 10_000);
      assert.equal(host.relay.stats().sockets, 0, 'the socket itself is finished');
      assert.deepEqual(host.relay.admitUpgrade(), { status: 503, reason: 'Too many open sockets' });
      b.ws.resume(); // the browser reads: the close completes and the transport reports it
      assert.equal((await b.closed).code, 1013);
      await waitFor(() => host.relay.admitUpgrade() === null, 5_000);
      const next = await initialisedClient(host.url);
      next.ws.close(1000);
      await next.closed;
    });
  } finally {
    await upstream.close();
  }
});
