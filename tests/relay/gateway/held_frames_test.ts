/**
 * Frames held before the upstream socket is ready, through the whole gateway on
 * both hosts (SPEC "Events" 2, "Limits": 64 frames or 512 KiB before the
 * upstream opens, "WebSocket close codes" 4400): a browser that keeps sending
 * past the 64th held frame gets a real close 4400 with the overflow sentence
 * (on Deno too, where a frame arriving after the close frame used to drop the
 * connection: 1006), and none of its frames reaches the upstream (the
 * sandbox acknowledges late, so the frames are held whatever the machine's load).
 */
import assert from 'node:assert/strict';
import { browser } from '../ws_browser.ts';
import { HOSTS } from '../../helpers/gateway.ts';
import { withGateway } from '../../helpers/setup.ts';

const OVERFLOW = { code: 4400, reason: 'Too many frames before the upstream opened' };

for (const kind of HOSTS) {
  for (const sent of [65, 80, 300]) {
    Deno.test(`[${kind}] ${sent} frames right after connection_init: close 4400, nothing relayed`, async () => {
      await withGateway(kind, {}, async ({ sandbox, gateway }) => {
        sandbox.switches.ws.ackDelayMs = 2_000; // the upstream is slow to acknowledge
        const c = await browser(`${gateway.url.replace('http', 'ws')}/svc/graphql`);
        c.send({ type: 'connection_init' });
        for (let i = 0; i < sent; i++) {
          c.send({
            id: String(i),
            type: 'subscribe',
            payload: { query: 'subscription { bookingAdded(botID: "x") { id } }' },
          });
        }
        assert.deepEqual(await c.closed, OVERFLOW);
        assert.deepEqual(c.frames, [], 'no connection_ack, no answer');
        for (const upstream of sandbox.sockets) {
          assert.deepEqual(upstream.subscribes, [], 'a held frame reached the upstream');
          assert.ok(
            upstream.frames.every((f) => JSON.parse(f).type === 'connection_init'),
            `only the relay's own init reached the upstream: ${upstream.frames}`,
          );
        }
      });
    });
  }
}
