/**
 * The client library after a stall close (docs/operations.md "Slow and vanished peers on the
 * relay"): `createSvcSocket` (svc-gateway/client, the real graphql-ws client) whose first socket
 * stops reading for longer than the gateway's stall timeout gets the 1013 close once it reads
 * again, retries it (1013 is not among its fatal codes), reconnects with its backoff, calls
 * `onReconnect` and re-subscribes: the upstream sees a second subscription, and the app's sink
 * keeps receiving. Run against the Deno host as its own process (WS_STALL_TIMEOUT_MS=1000); the
 * browser socket is the `ws` client, whose `pause()` stops reading the TCP socket as a stalled tab
 * does.
 */
import assert from 'node:assert/strict';
import { WebSocket as WsClient } from 'ws';
import { createSvcSocket } from '../../../src/client/mod.ts';
import { WORLD_IDS } from '../../../scripts/sandbox/mod.ts';
import { startHostProcess } from '../../../scripts/host_process.ts';
import { FLOOD_QUERY, startFloodUpstream } from '../../../scripts/bench/flood_upstream.ts';

/** Closes seen by the sockets the client opened, in order. */
const closes: { code: number; reason: string }[] = [];
let opened = 0;

/**
 * The WebSocket the client gets: the first one stops reading at its first `next` frame for
 * 3 s (three stall timeouts), then reads again; later ones read normally.
 */
class StallingOnce extends WsClient {
  constructor(url: string, protocols?: string | string[]) {
    super(url, protocols, { perMessageDeflate: false });
    const first = opened++ === 0;
    this.on('close', (code, reason) => closes.push({ code, reason: String(reason) }));
    if (!first) return;
    const onMessage = (data: unknown) => {
      if (!String(data).includes('"next"')) return;
      this.off('message', onMessage);
      this.pause();
      setTimeout(() => this.resume(), 3000);
    };
    this.on('message', onMessage);
  }
}

Deno.test({
  name: 'the client library reconnects after the 1013 stall close and re-subscribes',
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const upstream = await startFloodUpstream();
    const gateway = await startHostProcess('deno', {
      env: {
        SVC_TOKEN: 'reconnect-test-master-token',
        SVC_API_BASE: upstream.url,
        HOST: '127.0.0.1',
        PORT: '0',
        WS_STALL_TIMEOUT_MS: '1000',
      },
    });
    const saved = globalThis.WebSocket;
    globalThis.WebSocket = StallingOnce as unknown as typeof WebSocket;
    let reconnects = 0;
    const client = createSvcSocket({
      url: `${gateway.url}/svc/graphql`,
      retry: { baseMs: 50, capMs: 100 },
      onReconnect: () => reconnects++,
    });
    try {
      let received = 0;
      const failed = Promise.withResolvers<unknown>();
      client.subscribe({ query: FLOOD_QUERY, variables: { botID: WORLD_IDS.bot1 } }, {
        next: () => void received++,
        error: (error) => failed.resolve(error),
        complete: () => failed.resolve('completed'),
      });
      const end = Date.now() + 20_000;
      while (upstream.streams.length < 2 || upstream.streams[1].sent === 0 || reconnects === 0) {
        assert.ok(Date.now() < end, `no reconnection: closes ${JSON.stringify(closes)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(closes[0].code, 1013);
      assert.match(closes[0].reason, /too slow/);
      assert.equal(reconnects, 1);
      assert.equal(opened, 2);
      assert.ok(upstream.streams[0].ended, 'the stalled subscription ended upstream');
      const before = received;
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.ok(received > before, 'the sink receives again after the reconnection');
      const outcome = await Promise.race([failed.promise, Promise.resolve('open')]);
      assert.equal(outcome, 'open', 'the subscription never errored');
    } finally {
      await client.dispose();
      globalThis.WebSocket = saved;
      await gateway.stop();
      await upstream.close();
    }
  },
});
