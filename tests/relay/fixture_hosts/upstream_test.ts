/**
 * The upstream leg, on both hosts (the Deno host's upstream leg is a Web WebSocket, the ws
 * host's the `ws` client): 4000-4999 pass through (rewritten, token cut out), other closes and
 * unreachable upstreams become 1012, a dead, silent, misbehaving or oversize upstream is
 * dropped with 1012, and protocol pings flow both ways.
 */
import assert from 'node:assert/strict';
import { closeClient, initialisedClient, rawClient, ticks } from './fixtures/clients.ts';
import type { HostKind } from './fixtures/hosts.ts';
import type { Admission, SubscribeVerdict } from '../../../src/ws/mod.ts';
import { testBothHosts, TOKEN, withWorld, type WorldOptions } from './fixtures/setup.ts';
import { type RawPeer, startRawUpstream, waitFor } from './fixtures/upstream.ts';

const DISCONNECTED = { code: 1012, reason: 'upstream disconnected' };

/** Runs `fn` against a scripted upstream that acknowledges init, then follows `script`. */
async function withScripted(
  kind: HostKind,
  script: (peer: RawPeer, message: { type?: string; id?: string }) => void,
  options: WorldOptions,
  fn: (url: string, received: unknown[], logs: string[]) => Promise<void>,
): Promise<void> {
  const raw = await startRawUpstream((peer, message) => {
    if (message.type === 'connection_init') peer.send({ type: 'connection_ack' });
    else script(peer, message);
  });
  try {
    await withWorld(
      kind,
      { ...options, upstreamUrl: raw.url },
      ({ host }) => fn(host.url, raw.received, host.logs),
    );
    await waitFor(() => raw.open() === 0, 3_000);
  } finally {
    await raw.close();
  }
}

testBothHosts(
  'upstream close codes 4000-4999 pass through, rewritten and without the token',
  (kind) =>
    withWorld(kind, {
      deps: (b) => ({
        ...b,
        rewriteCloseReason: (r) => r.replace('internal-billing-service', 'an upstream service'),
      }),
    }, async ({ host, upstream }) => {
      const c = await initialisedClient(host.url);
      upstream.closeSockets(4321, `internal-billing-service rejected ${TOKEN}`);
      assert.deepEqual(await c.closed, {
        code: 4321,
        reason: 'an upstream service rejected [redacted]',
      });
    }),
);

testBothHosts(
  "the upstream's own refusal of the relay's init passes through (4403)",
  (kind) =>
    withWorld(kind, {
      deps: (b) => ({
        ...b,
        token: () => 'not-the-token',
      }),
    }, async ({ host, upstream }) => {
      const c = rawClient(host.url);
      await c.opened;
      c.send({ type: 'connection_init' });
      assert.deepEqual(await c.closed, { code: 4403, reason: 'Forbidden' });
      assert.deepEqual(upstream.initPayloads, [{ authToken: 'Bearer not-the-token' }]);
    }),
);

testBothHosts(
  'any other upstream close becomes 1012 upstream disconnected',
  (kind) =>
    withWorld(kind, {}, async ({ host, upstream }) => {
      const c = await initialisedClient(host.url);
      c.send(ticks('1', 1_000, 10));
      await c.next();
      upstream.closeSockets(1000, `bye ${TOKEN}`);
      assert.deepEqual(await c.closed, DISCONNECTED);
    }),
);

testBothHosts('an unreachable upstream is 1012', async (kind) => {
  // A port that was free a moment ago: nothing listens there.
  const probe = Deno.listen({ hostname: '127.0.0.1', port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  await withWorld(kind, { upstreamUrl: `ws://127.0.0.1:${port}/graphql` }, async ({ host }) => {
    const c = rawClient(host.url);
    await c.opened;
    c.send({ type: 'connection_init' });
    assert.deepEqual(await c.closed, DISCONNECTED);
  });
});

for (
  const [verdict, expected] of [
    [{ ok: false, closeCode: 1013, reason: 'ProxyFenceUnavailable' }, {
      code: 1013,
      reason: 'ProxyFenceUnavailable',
    }],
    [{ ok: true, payload: { query: 'subscription { ticks }' } }, DISCONNECTED],
  ] as const
) {
  testBothHosts(
    `subscribes held when the upstream is unreachable are still checked first (${expected.code})`,
    async (kind) => {
      const probe = Deno.listen({ hostname: '127.0.0.1', port: 0 });
      const port = (probe.addr as Deno.NetAddr).port;
      probe.close();
      let admit!: (a: Admission) => void;
      const admitted = new Promise<Admission>((resolve) => admit = resolve);
      const checked: unknown[] = [];
      await withWorld(kind, {
        upstreamUrl: `ws://127.0.0.1:${port}/graphql`,
        deps: (b) => ({
          ...b,
          admit: () => admitted,
          checkSubscribe: (payload) => {
            checked.push(payload);
            return Promise.resolve(verdict as SubscribeVerdict);
          },
        }),
      }, async ({ host }) => {
        const c = rawClient(host.url);
        await c.opened;
        c.send({ type: 'connection_init' });
        c.send(ticks('1', 1));
        await waitFor(() => host.relay.stats().heldFrames === 1);
        admit({ ok: true, session: {} });
        assert.deepEqual(await c.closed, expected);
        assert.equal(checked.length, 1, 'the held subscribe was checked');
      });
    },
  );
}

testBothHosts(
  'a dead upstream is noticed (no pong, no frame) and the browser gets 1012',
  (kind) =>
    withScripted(kind, () => {/* silent: never answers, never pongs */}, {
      deps: (b) => ({ ...b, limits: { ...b.limits, wsPingIntervalMs: 40, wsPongTimeoutMs: 40 } }),
    }, async (url, _received, logs) => {
      const c = await initialisedClient(url);
      c.send(ticks('1', 1));
      assert.deepEqual(await c.closed, DISCONNECTED);
      assert.deepEqual(logs, ['ws relay: upstream dropped: unresponsive']);
    }),
);

testBothHosts('an upstream that never acknowledges is dropped with 1012', async (kind) => {
  const raw = await startRawUpstream(() => {/* never acks */});
  try {
    await withWorld(kind, {
      upstreamUrl: raw.url,
      deps: (b) => ({ ...b, limits: { ...b.limits, upstreamAckTimeoutMs: 60 } }),
    }, async ({ host }) => {
      const c = rawClient(host.url);
      await c.opened;
      c.send({ type: 'connection_init' });
      assert.deepEqual(await c.closed, DISCONNECTED);
      assert.deepEqual(host.logs, ['ws relay: upstream dropped: no connection_ack']);
    });
    await waitFor(() => raw.open() === 0);
  } finally {
    await raw.close();
  }
});

testBothHosts(
  'an invalid upstream frame drops the upstream; the browser gets 1012',
  (kind) =>
    withScripted(
      kind,
      (peer, m) => {
        if (m.type === 'subscribe') peer.sendText('{"type":"subscribe","id":"x","payload":{}}');
      },
      {},
      async (url, _received, logs) => {
        const c = await initialisedClient(url);
        c.send(ticks('1', 1));
        assert.deepEqual(await c.closed, DISCONNECTED);
        assert.deepEqual(logs, [
          'ws relay: upstream dropped: invalid frame: Frame type is not accepted from this side',
        ]);
      },
    ),
);

testBothHosts(
  'an upstream frame over the upstream ceiling drops the upstream (1012)',
  (kind) =>
    withWorld(kind, {
      deps: (b) => ({ ...b, limits: { ...b.limits, upstreamFrameBytes: 4096 } }),
    }, async ({ host }) => {
      const c = await initialisedClient(host.url);
      c.send({
        id: 'ok',
        type: 'subscribe',
        payload: { query: 'subscription { big(bytes: 1000) }' },
      });
      assert.equal((await c.next()).type, 'next');
      c.send({
        id: 'big',
        type: 'subscribe',
        payload: { query: 'subscription { big(bytes: 10000) }' },
      });
      assert.deepEqual(await c.closed, DISCONNECTED);
    }),
);

testBothHosts(
  'protocol pings and pongs flow both ways, re-serialised',
  (kind) =>
    withScripted(
      kind,
      (peer, m) => {
        if (m.type === 'subscribe') {
          peer.send({
            type: 'ping',
            payload: { from: 'upstream' },
            junk: 1,
          });
        }
      },
      {},
      async (url, received) => {
        const c = await initialisedClient(url);
        c.send(ticks('1', 1));
        assert.deepEqual(await c.next(), { type: 'ping', payload: { from: 'upstream' } });
        c.send({ type: 'pong', payload: { from: 'browser' }, junk: 2 });
        await waitFor(() => received.some((m) => (m as { type: string }).type === 'pong'));
        assert.deepEqual(received.find((m) => (m as { type: string }).type === 'pong'), {
          type: 'pong',
          payload: { from: 'browser' },
        });
        await closeClient(c);
      },
    ),
);

testBothHosts(
  'closing the browser closes the upstream',
  (kind) =>
    withWorld(kind, {}, async ({ host, upstream }) => {
      const c = await initialisedClient(host.url);
      c.send(ticks('1', 1_000, 10));
      await c.next();
      assert.equal(upstream.open(), 1);
      await closeClient(c);
      await waitFor(() => upstream.open() === 0);
    }),
);

testBothHosts(
  'the master token is cut out of anything the upstream sends on',
  (kind) =>
    withScripted(
      kind,
      (peer, m) => {
        if (m.type !== 'subscribe') return;
        peer.send({ id: m.id, type: 'next', payload: { data: { echo: `seen ${TOKEN}` } } });
        peer.send({ id: m.id, type: 'error', payload: [{ message: `bad Bearer ${TOKEN}` }] });
      },
      {},
      async (url) => {
        const c = await initialisedClient(url);
        c.send(ticks('1', 1));
        assert.deepEqual(await c.next(), {
          id: '1',
          type: 'next',
          payload: { data: { echo: 'seen [redacted]' } },
        });
        assert.deepEqual(await c.next(), {
          id: '1',
          type: 'error',
          payload: [{ message: 'bad Bearer [redacted]' }],
        });
        await closeClient(c);
      },
    ),
);
