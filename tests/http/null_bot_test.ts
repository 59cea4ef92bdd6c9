/**
 * Step 17 for a bot named as null, on both hosts, over HTTP and on the socket
 * (SPEC "Order in which a GraphQL body is checked" 17 "every named bot is a
 * string": a request that names the bot variable names a bot). A `botID`
 * variable sent as JSON null, or `bot(id: null)`, is 400 ProxyMalformedQuery
 * (an error frame on the subscription's id on the socket, which stays open),
 * and nothing reaches the upstream.
 */
import assert from 'node:assert/strict';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { assertNothingReached, assertRefusal, postGraphql } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';
import { browser } from '../relay/ws_browser.ts';

const BOT = 'query B($botID: BotID!) { bot(id: $botID) { id } }';
const BOOKINGS = 'subscription S($botID: BotID!) { bookingAdded(botID: $botID) { id } }';

/** Entries that name a bot as null, with where the refusal says it was found. */
const NULL_BOTS: { name: string; entry: Record<string, unknown>; argument: RegExp }[] = [
  {
    name: 'botID variable null',
    entry: { query: BOT, variables: { botID: null } },
    argument: /botID/,
  },
  {
    name: 'botID null, document not using it',
    entry: { query: '{ currentUser { id } }', variables: { botID: null } },
    argument: /variables\.botID/,
  },
  { name: 'bot(id: null)', entry: { query: '{ bot(id: null) { id } }' }, argument: /bot\(id:\)/ },
  {
    name: 'a null botID beside a real one',
    entry: {
      query: 'query($a: BotID!, $b: BotID) { a: bot(id: $a) { id } b: bot(id: $b) { id } }',
      variables: { a: WORLD_IDS.bot1, b: null },
    },
    argument: /bot\(id:\)/,
  },
];

for (const kind of HOSTS) {
  Deno.test(`[${kind}] step 17 over HTTP: a bot named as null is 400 ProxyMalformedQuery`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      await assertNothingReached(sandbox, async () => {
        for (const c of NULL_BOTS) {
          const message = await assertRefusal(
            await postGraphql(gateway.url, c.entry),
            400,
            'ProxyMalformedQuery',
          );
          assert.match(message, c.argument, c.name);
          assert.match(message, /must be a string/, c.name);
        }
        await assertRefusal(
          await postGraphql(gateway.url, [
            { query: BOT, variables: { botID: WORLD_IDS.bot1 } },
            { query: BOT, variables: { botID: null } },
          ]),
          400,
          'ProxyMalformedQuery',
        );
      });
      const named = await postGraphql(gateway.url, {
        query: BOT,
        variables: { botID: WORLD_IDS.bot1 },
      });
      assert.equal(named.status, 200, 'a string bot id still passes');
      await named.body?.cancel();
    });
  });

  Deno.test(`[${kind}] step 17 on the socket: a bot named as null is an error frame, the socket stays open`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const c = await browser(`${gateway.url.replace('http', 'ws')}/svc/graphql`);
      c.send({ type: 'connection_init' });
      await sandbox.waitFor(() => c.frames.length === 1, 'connection_ack');
      assert.deepEqual(c.frames[0], { type: 'connection_ack' });
      const subscribes = () => sandbox.sockets.flatMap((s) => s.subscribes).length;
      c.send({
        id: 'null-var',
        type: 'subscribe',
        payload: { query: BOOKINGS, variables: { botID: null } },
      });
      c.send({
        id: 'null-literal',
        type: 'subscribe',
        payload: { query: 'subscription { bookingAdded(botID: null) { id } }' },
      });
      await sandbox.waitFor(() => c.frames.length === 3, 'two error frames');
      for (const [i, id] of [[1, 'null-var'], [2, 'null-literal']] as const) {
        const frame = c.frames[i] as {
          id: string;
          type: string;
          payload: { extensions: { code: string } }[];
        };
        assert.equal(frame.id, id);
        assert.equal(frame.type, 'error');
        assert.equal(frame.payload[0].extensions.code, 'ProxyMalformedQuery');
      }
      assert.equal(subscribes(), 0, 'a refused subscribe reached the upstream');
      c.send({
        id: 'ok',
        type: 'subscribe',
        payload: { query: BOOKINGS, variables: { botID: WORLD_IDS.bot1 } },
      });
      await sandbox.waitFor(() => subscribes() === 1, 'the same socket still relays');
      c.send({ id: 'ok', type: 'complete' });
      c.close();
      await c.closed;
    });
  });
}
