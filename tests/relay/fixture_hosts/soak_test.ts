/**
 * Load and leaks, on both hosts: 200 concurrent subscriptions across 10 sockets through the
 * real graphql-ws client, every event delivered; then 1000 sockets opened and closed in every
 * phase (before init, after ack, mid-subscription, closed by the relay), after which the
 * relay's counts, the upstream's sockets and the upstream's streams are all back to zero.
 */
import assert from 'node:assert/strict';
import {
  closeClient,
  collect,
  gqlClient,
  initialisedClient,
  rawClient,
  ticks,
} from './fixtures/clients.ts';
import { testBothHosts, withWorld, ZERO } from './fixtures/setup.ts';
import { liveStreams } from './fixtures/schema.ts';
import { waitFor } from './fixtures/upstream.ts';

const TICKS = 'subscription T($c: Int!, $i: Int!) { ticks(count: $c, intervalMs: $i) }';

testBothHosts(
  '200 concurrent subscriptions across 10 sockets all deliver every event',
  (kind) =>
    withWorld(kind, {}, async ({ host, upstream }) => {
      const clients = Array.from({ length: 10 }, () => gqlClient(host.url).client);
      const runs = clients.flatMap((client) =>
        Array.from({ length: 20 }, () => collect(client, TICKS, { c: 10, i: 5 }))
      );
      const results = await Promise.all(runs);
      assert.equal(results.length, 200);
      const expected = Array.from({ length: 10 }, (_, i) => ({ data: { ticks: i } }));
      for (const r of results) assert.deepEqual(r, expected);
      // One socket per client, both legs: 10 upstream sockets carried the 200 subscriptions.
      assert.equal(upstream.initPayloads.length, 10);
      await Promise.all(clients.map((c) => c.dispose()));
      await waitFor(() => upstream.open() === 0);
    }),
);

/** One socket's life, ending in phase `n % 4`. */
async function oneSocket(url: string, n: number): Promise<void> {
  switch (n % 4) {
    case 0: { // closed before connection_init
      const c = rawClient(url);
      await c.opened;
      await closeClient(c);
      return;
    }
    case 1: { // closed right after the ack
      await closeClient(await initialisedClient(url));
      return;
    }
    case 2: { // closed in the middle of a subscription
      const c = await initialisedClient(url);
      c.send(ticks('1', 1_000, 2));
      await c.next();
      await closeClient(c);
      return;
    }
    default: { // closed by the relay (bad frame) with a subscription open
      const c = await initialisedClient(url);
      c.send(ticks('1', 1_000, 2));
      await c.next();
      c.send('not json');
      const closed = await c.closed;
      assert.equal(closed.code, 4400);
    }
  }
}

testBothHosts(
  '1000 sockets opened and closed leave every count at zero',
  (kind) =>
    withWorld(kind, {
      deps: (b) => ({
        ...b,
        limits: { ...b.limits, wsMaxSockets: 2_000, wsPreAuthSockets: 2_000 },
      }),
    }, async ({ host, upstream }) => {
      let peak = 0;
      const sample = () => peak = Math.max(peak, host.relay.stats().sockets);
      const sampler = setInterval(sample, 1);
      try {
        for (let batch = 0; batch < 20; batch++) {
          await Promise.all(
            Array.from({ length: 50 }, (_, i) => oneSocket(host.url, batch * 50 + i)),
          );
        }
      } finally {
        clearInterval(sampler);
      }
      assert.ok(peak > 1, 'sockets were open at the same time');
      await waitFor(() => host.relay.stats().sockets === 0 && upstream.open() === 0);
      assert.deepEqual(host.relay.stats(), ZERO);
      await waitFor(() => liveStreams.size === 0);
      assert.equal(upstream.initPayloads.length, 750);
    }),
);
