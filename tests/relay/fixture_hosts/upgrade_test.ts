/**
 * Upgrades, on both hosts: 503 past wsMaxSockets and past wsPreAuthSockets (plain HTTP, before
 * any socket exists), other paths unclaimed, the relay path without graphql-transport-ws
 * refused; and, where the transport can ping (the ws host), a dead browser is dropped.
 */
import assert from 'node:assert/strict';
import { WebSocket as WsWebSocket } from 'ws';
import { closeClient, initialisedClient, rawClient, ticks } from './fixtures/clients.ts';
import { upgradeStatus } from './fixtures/clients.ts';
import { WS_PATH } from './fixtures/hosts.ts';
import { testBothHosts, withWorld } from './fixtures/setup.ts';
import { waitFor } from './fixtures/upstream.ts';

const PROTO = 'graphql-transport-ws';

testBothHosts(
  'the upgrade is refused 503 past wsMaxSockets',
  (kind) =>
    withWorld(
      kind,
      { deps: (b) => ({ ...b, limits: { ...b.limits, wsMaxSockets: 2 } }) },
      async ({ host }) => {
        const a = await initialisedClient(host.url);
        const b = await initialisedClient(host.url);
        assert.equal(await upgradeStatus(host.port, WS_PATH, PROTO), 503);
        await closeClient(a);
        // a finished socket counts until its transport reports closed (src/ws/relay.ts
        // admitUpgrade), which can come after the socket gauge has dropped
        await waitFor(() => host.relay.stats().sockets === 1 && host.relay.admitUpgrade() === null);
        assert.equal(await upgradeStatus(host.port, WS_PATH, PROTO), 101);
        await closeClient(b);
      },
    ),
);

testBothHosts(
  'the upgrade is refused 503 past wsPreAuthSockets',
  (kind) =>
    withWorld(
      kind,
      { deps: (b) => ({ ...b, limits: { ...b.limits, wsPreAuthSockets: 1 } }) },
      async ({ host }) => {
        const waiting = rawClient(host.url);
        await waiting.opened;
        await waitFor(() => host.relay.stats().preAuth === 1);
        assert.equal(await upgradeStatus(host.port, WS_PATH, PROTO), 503);
        waiting.send({ type: 'connection_init' });
        assert.equal((await waiting.next()).type, 'connection_ack');
        assert.equal(host.relay.stats().preAuth, 0);
        assert.equal(await upgradeStatus(host.port, WS_PATH, PROTO), 101);
        await closeClient(waiting);
      },
    ),
);

testBothHosts(
  'other paths are unclaimed; the relay path needs graphql-transport-ws',
  (kind) =>
    withWorld(kind, {}, async ({ host }) => {
      assert.equal(await upgradeStatus(host.port, '/other', PROTO), 404);
      assert.equal(await upgradeStatus(host.port, WS_PATH, 'graphql-ws'), 400);
      assert.equal(await upgradeStatus(host.port, WS_PATH), 400);
      assert.equal(await upgradeStatus(host.port, WS_PATH, `graphql-ws, ${PROTO}`), 101);
      await waitFor(() => host.relay.stats().sockets === 0);
    }),
);

Deno.test('a dead browser is dropped by the WebSocket-level keepalive [ws host]', () =>
  withWorld('ws', {
    deps: (b) => ({ ...b, limits: { ...b.limits, wsPingIntervalMs: 40, wsPongTimeoutMs: 40 } }),
  }, async ({ host, upstream }) => {
    // A `ws` client that never answers pings.
    const ws = new WsWebSocket(host.url, PROTO, { autoPong: false });
    const closed = new Promise<number>((resolve) =>
      ws.on('close', (code: number) => resolve(code))
    );
    await new Promise((resolve) => ws.on('open', resolve));
    ws.send(JSON.stringify({ type: 'connection_init' }));
    ws.send(JSON.stringify(ticks('1', 1_000, 1_000)));
    assert.equal(await closed, 1006, 'terminated without a close frame');
    await waitFor(() => upstream.open() === 0);
  }));

testBothHosts(
  'closeAll ends every socket with 1001 and refuses later upgrades',
  (kind) =>
    withWorld(kind, {}, async ({ host, upstream }) => {
      const a = await initialisedClient(host.url);
      const b = await initialisedClient(host.url);
      b.send(ticks('1', 1_000, 10));
      await b.next();
      await host.relay.closeAll();
      assert.deepEqual(await a.closed, { code: 1001, reason: 'going away' });
      assert.deepEqual(await b.closed, { code: 1001, reason: 'going away' });
      assert.deepEqual(host.relay.admitUpgrade(), {
        status: 503,
        reason: 'The relay is shutting down',
      });
      assert.equal(await upgradeStatus(host.port, WS_PATH, PROTO), 503);
      await waitFor(() => upstream.open() === 0);
    }),
);
