/**
 * urql 6 (`@urql/core`, pinned in deno.json) against the gateway on both hosts with the sandbox
 * upstream, as docs/clients.md "urql" sets it up: `preferGetMethod: false` (the gateway takes
 * POST only) and `subscriptionExchange` over graphql-ws. A query, a subscription, and a refusal
 * whose code the app reads from `CombinedError.graphQLErrors`. urql's default sends a query as
 * GET: 405, which urql reports as a network error with the status, nothing reaching the upstream.
 */
import assert from 'node:assert/strict';
import { Client, fetchExchange, gql, subscriptionExchange } from '@urql/core';
import type { Client as SocketClient } from 'graphql-ws';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { assertNothingReached } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';
import { BOOKINGS, BOT_QUERY, FOREIGN_BOT, graphqlUrl, socketClient } from './helpers.ts';

const BOT = gql(BOT_QUERY);
const SUBSCRIPTION = gql(BOOKINGS);

/** A urql client as docs/clients.md sets it up, its subscriptions over `ws`. */
function urql(url: string, ws: SocketClient): Client {
  return new Client({
    url,
    preferGetMethod: false,
    exchanges: [
      fetchExchange,
      subscriptionExchange({
        forwardSubscription(request) {
          const input = { ...request, query: request.query || '' };
          return {
            subscribe: (sink) => ({ unsubscribe: ws.subscribe(input, sink) }),
          };
        },
      }),
    ],
  });
}

/** Runs a subscription until it has `count` events or an error. */
function subscribe(client: Client, botID: string, count: number) {
  const data: unknown[] = [];
  return new Promise<{ data: unknown[]; codes?: unknown[] }>((resolve) => {
    client.subscription(SUBSCRIPTION, { botID }).subscribe((result) => {
      if (result.error) {
        resolve({ data, codes: result.error.graphQLErrors.map((e) => e.extensions?.code) });
      } else data.push(result.data);
      if (data.length === count) resolve({ data });
    });
  });
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] urql: query, subscription and a refusal's code; the default GET is 405`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const url = graphqlUrl(gateway.url);
      const ws = socketClient(gateway.url);
      const client = urql(url, ws);
      try {
        const ok = await client.query(BOT, { botID: WORLD_IDS.bot1 }).toPromise();
        assert.equal(ok.error, undefined, ok.error?.message);
        assert.equal((ok.data as { bot: { id: string } }).bot.id, WORLD_IDS.bot1);
        const events = await subscribe(client, WORLD_IDS.bot1, 3);
        assert.equal(events.data.length, 3);
        await assertNothingReached(sandbox, async () => {
          const refused = await client.query(BOT, { botID: FOREIGN_BOT }).toPromise();
          assert.equal(refused.error?.graphQLErrors[0]?.extensions?.code, 'BotNotAllowed');
          assert.equal(refused.error?.response?.status, 403);
          const socketRefused = await subscribe(client, FOREIGN_BOT, 1);
          assert.deepEqual(socketRefused.codes, ['BotNotAllowed']);
          const defaults = new Client({ url, exchanges: [fetchExchange] });
          const get = await defaults.query(BOT, { botID: WORLD_IDS.bot1 }).toPromise();
          assert.equal(get.error?.networkError?.message, 'Method Not Allowed');
          assert.equal(get.error?.response?.status, 405);
        });
        assert.equal(sandbox.sockets.flatMap((s) => s.subscribes).length, 1, 'one subscribe');
      } finally {
        await ws.dispose();
      }
    });
  });
}
