/**
 * Gate off, bot fence unresolvable, through the whole gateway on both hosts
 * (SPEC "WebSocket close codes": 1013 ProxyFenceUnavailable "gate off, fence
 * unresolvable"; "Order in which a GraphQL body is checked": steps 18-20 come
 * before the forward, first refusal wins). A subscribe naming a bot closes the
 * socket 1013 whether the upstream socket works or cannot be reached at all
 * (then the held subscribe is still checked before the upstream's 1012 could
 * win), and nothing of the caller's reaches the upstream.
 */
import assert from 'node:assert/strict';
import { WORLD_IDS } from '../../../scripts/sandbox/mod.ts';
import { type Browser, browser } from '../ws_browser.ts';
import { assertNothingReached } from '../../helpers/assertions.ts';
import { HOSTS, startGateway } from '../../helpers/gateway.ts';
import { withGateway } from '../../helpers/setup.ts';

const BOOKINGS = 'subscription S($botID: BotID!) { bookingAdded(botID: $botID) { id } }';
const FENCE_UNAVAILABLE = { code: 1013, reason: 'ProxyFenceUnavailable' };

function subscribe(c: Browser, id: string, botID?: string) {
  c.send({
    id,
    type: 'subscribe',
    payload: botID
      ? { query: BOOKINGS, variables: { botID } }
      : { query: 'subscription { __typename }' },
  });
}

/** A loopback port nothing listens on: the upstream can be asked nothing. */
function deadPort(): number {
  const listener = Deno.listen({ hostname: '127.0.0.1', port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] upstream unreachable: a held subscribe naming a bot closes 1013, not 1012`, async () => {
    const upstream = `http://127.0.0.1:${deadPort()}`;
    const gateway = await startGateway(kind, {}, {
      SVC_TOKEN: 'svc-test-token',
      SVC_API_BASE: upstream,
    });
    try {
      const url = `${gateway.url.replace('http', 'ws')}/svc/graphql`;
      const named = await browser(url);
      named.send({ type: 'connection_init' });
      subscribe(named, '1', WORLD_IDS.bot1);
      assert.deepEqual(await named.closed, FENCE_UNAVAILABLE);
      assert.deepEqual(named.frames, []);
      const plain = await browser(url);
      plain.send({ type: 'connection_init' });
      subscribe(plain, '1');
      assert.deepEqual(
        await plain.closed,
        { code: 1012, reason: 'upstream disconnected' },
        'no bot named: no fence needed, the upstream failure decides',
      );
    } finally {
      await gateway.stop();
    }
  });

  Deno.test(`[${kind}] fence question failing, upstream socket slow: 1013 and nothing relayed`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      sandbox.switches.status = { status: 500, match: { operationName: 'SvcWorkspaceBots' } };
      sandbox.switches.ws.ackDelayMs = 300;
      const c = await browser(`${gateway.url.replace('http', 'ws')}/svc/graphql`);
      await assertNothingReached(sandbox, async () => {
        c.send({ type: 'connection_init' });
        subscribe(c, '1', WORLD_IDS.bot1);
        assert.deepEqual(await c.closed, FENCE_UNAVAILABLE);
      }).catch((error) => {
        // the relay's own upstream socket may have opened (it carries only the relay's init)
        if (!/socket reached/.test(String(error))) throw error;
      });
      for (const upstream of sandbox.sockets) {
        assert.deepEqual(upstream.subscribes, [], 'the refused subscribe reached the upstream');
      }
      assert.ok(sandbox.received.every((r) => r.search === '?op=SvcWorkspaceBots'));
    });
  });
}
