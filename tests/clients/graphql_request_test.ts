/**
 * graphql-request 7 (pinned in deno.json) and graphql-ws 6's `createClient` against the gateway
 * on both hosts with the sandbox upstream, as docs/clients.md sets them up: graphql-request for
 * queries (POST, asking for `application/graphql-response+json` first), graphql-ws for
 * subscriptions (graphql-request has none). A query, a subscription, and a refusal whose code the
 * app reads: `ClientError.response.errors` over HTTP, the error list of the sink's `error` (or
 * what `iterate` throws) on the socket.
 */
import assert from 'node:assert/strict';
import { ClientError, GraphQLClient } from 'graphql-request';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { assertNothingReached } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';
import {
  BOOKINGS,
  BOT_QUERY,
  firstCode,
  FOREIGN_BOT,
  graphqlUrl,
  socketClient,
} from './helpers.ts';

for (const kind of HOSTS) {
  Deno.test(`[${kind}] graphql-request: a query and a refusal's code`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const client = new GraphQLClient(graphqlUrl(gateway.url));
      const data = await client.request<{ bot: { id: string } }>(BOT_QUERY, {
        botID: WORLD_IDS.bot1,
      });
      assert.equal(data.bot.id, WORLD_IDS.bot1);
      await assertNothingReached(sandbox, async () => {
        const refused = await client.request(BOT_QUERY, { botID: FOREIGN_BOT }).catch((e) => e);
        assert.ok(refused instanceof ClientError, String(refused));
        assert.equal(refused.response.status, 403);
        assert.equal(firstCode(refused.response.errors), 'BotNotAllowed');
      });
    });
  });

  Deno.test(`[${kind}] graphql-ws createClient: subscription, and a refusal's code`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const client = socketClient(gateway.url);
      try {
        const events: unknown[] = [];
        for await (
          const event of client.iterate({
            query: BOOKINGS,
            variables: { botID: WORLD_IDS.bot1 },
          })
        ) {
          events.push(event);
        }
        assert.equal(events.length, 3);
        const refused = await client.iterate({ query: BOOKINGS, variables: { botID: FOREIGN_BOT } })
          .next().catch((e) => e);
        assert.equal(firstCode(refused), 'BotNotAllowed');
        const sinkError = await new Promise((resolve) => {
          client.subscribe({ query: BOOKINGS, variables: { botID: FOREIGN_BOT } }, {
            next: () => {},
            error: resolve,
            complete: () => resolve(null),
          });
        });
        assert.equal(firstCode(sinkError), 'BotNotAllowed');
        assert.equal(sandbox.sockets.flatMap((s) => s.subscribes).length, 1, 'one subscribe');
      } finally {
        await client.dispose();
      }
    });
  });
}
