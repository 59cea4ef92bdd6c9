/**
 * The client library's time defaults, read from the code paths that use them (SPEC "Client
 * library error classes": three retries, jittered backoff 1 s base, 30 s cap; "WebSocket close
 * codes", client-side: 10 s keepalive, 4408 after a ping unanswered 5 s, socket backoff 5 s base,
 * 60 s cap). No test waits those times: the client's timers are recorded and run at once (HTTP)
 * or a thousand times sooner (socket), and Math.random is held at 0 or just under 1, so each
 * wait is exactly half or all of min(cap, base * 2^n). The numbers are written here from the
 * spec; a test fails if a default changes.
 */
import assert from 'node:assert/strict';
import { createSvcClient, createSvcSocket, SvcHttpError } from '../../src/client/mod.ts';

const realSetTimeout = globalThis.setTimeout;
const realRandom = Math.random;

/**
 * Runs `body` with setTimeout recording each delay asked for (then running it after
 * `scale(ms)` real ms) and Math.random answering `random`; restores both after.
 */
async function withClock<T>(
  random: number,
  scale: (ms: number) => number,
  body: (delays: number[]) => Promise<T>,
): Promise<T> {
  const delays: number[] = [];
  globalThis.setTimeout = ((fn: () => void, ms = 0) => {
    delays.push(ms);
    return realSetTimeout(fn, scale(ms));
  }) as typeof setTimeout;
  Math.random = () => random;
  try {
    return await body(delays);
  } finally {
    globalThis.setTimeout = realSetTimeout;
    Math.random = realRandom;
  }
}

/** A fetch answering every call 429 with `retryAfter` seconds; counts the calls. */
function busyFetch(retryAfter: string) {
  const calls = { n: 0 };
  const fetch = (() => {
    calls.n++;
    return Promise.resolve(
      Response.json({ errors: [{ message: 'busy', extensions: { code: 'TenantBusy' } }] }, {
        status: 429,
        headers: { 'retry-after': retryAfter },
      }),
    );
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

Deno.test('HTTP client: 3 retries, waits of 1, 2, 4 s at most (1 s base), capped at 30 s', async () => {
  for (
    const [random, waits] of [[0, [500, 1000, 2000]], [0.9999999, [1000, 2000, 4000]]] as const
  ) {
    const { fetch, calls } = busyFetch('0');
    const client = createSvcClient({ url: 'http://gateway.invalid/svc/graphql', fetch });
    const delays = await withClock(random, () => 0, async (delays) => {
      const error = await client.request('{ ok }').catch((e) => e);
      assert.ok(error instanceof SvcHttpError, String(error));
      return delays;
    });
    assert.equal(calls.n, 4, 'the first attempt and 3 retries');
    assert.deepEqual(delays, waits, `Math.random ${random}`);
  }
  // a retry-after of 100 s is waited 30 s: the cap
  const { fetch, calls } = busyFetch('100');
  const client = createSvcClient({ url: 'http://gateway.invalid/svc/graphql', fetch });
  const delays = await withClock(0, () => 0, async (delays) => {
    await client.request('{ ok }').catch(() => {});
    return delays;
  });
  assert.equal(calls.n, 4);
  assert.deepEqual(delays, [30_000, 30_000, 30_000]);
});

/**
 * A graphql-transport-ws server: the first connection is acknowledged and its pings never
 * answered; every later one is closed 1012 at once (so the client's waits keep growing).
 */
function startServer() {
  let connections = 0;
  const server = Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: () => {} }, (req) => {
    const { socket, response } = Deno.upgradeWebSocket(req, { protocol: 'graphql-transport-ws' });
    const n = ++connections;
    socket.onmessage = (event) => {
      const frame = JSON.parse(String(event.data));
      if (frame.type !== 'connection_init') return;
      if (n === 1) socket.send(JSON.stringify({ type: 'connection_ack' }));
      else socket.close(1012, 'again');
    };
    return response;
  });
  return {
    server,
    url: `ws://127.0.0.1:${server.addr.port}/svc/graphql`,
    count: () => connections,
  };
}

Deno.test('socket: ping after 10 s, 4408 after 5 s unanswered, backoff 5 s base and 60 s cap', async () => {
  const { server, url, count } = startServer();
  try {
    const closes: number[] = [];
    const delays = await withClock(0, (ms) => ms / 1000, async (delays) => {
      const socket = createSvcSocket({ url });
      socket.on('closed', (event) => closes.push((event as CloseEvent).code));
      const stop = socket.subscribe({ query: 'subscription { ticks }' }, {
        next: () => {},
        error: () => {},
        complete: () => {},
      });
      const end = Date.now() + 10_000;
      while (count() < 7 && Date.now() < end) {
        await new Promise((resolve) => realSetTimeout(resolve, 5));
      }
      // graphql-ws 6.0.6 itself (a bare createClient too) rejects dispose, or leaves an unhandled
      // rejection, with the close of a connection torn down mid-retry: that close, and only
      // that, is let go here
      const isClose = (reason: unknown) => typeof (reason as { code?: unknown })?.code === 'number';
      const closeRejection = (event: PromiseRejectionEvent) => {
        if (isClose(event.reason)) event.preventDefault();
      };
      globalThis.addEventListener('unhandledrejection', closeRejection);
      try {
        stop();
        await Promise.resolve(socket.dispose()).catch((reason: unknown) => {
          if (!isClose(reason)) throw reason;
        });
        await new Promise((resolve) => realSetTimeout(resolve, 50));
      } finally {
        globalThis.removeEventListener('unhandledrejection', closeRejection);
      }
      return delays;
    });
    assert.ok(count() >= 7, `${count()} connections`);
    assert.equal(closes[0], 4408, `the unanswered ping closes 4408: ${closes}`);
    // the first timers the client sets: the keepalive after the connection_ack, then the pong wait
    assert.deepEqual(delays.slice(0, 2), [10_000, 5_000], `a 10 s keepalive, a 5 s pong wait`);
    // Math.random 0: each wait is half of min(60 s, 5 s * 2^n), counted from the connection_ack
    const waits = [2_500, 5_000, 10_000, 20_000, 30_000, 30_000];
    const rest = delays.slice(2);
    let at = 0;
    for (const wait of waits) {
      at = rest.indexOf(wait, at);
      assert.ok(at >= 0, `a ${wait} ms wait in order: ${rest}`);
      at++;
    }
  } finally {
    await server.shutdown();
  }
});
