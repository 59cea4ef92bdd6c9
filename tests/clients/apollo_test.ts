/**
 * Apollo Client 4 (`@apollo/client`, pinned in deno.json) against the gateway on both hosts with
 * the sandbox upstream, as docs/clients.md "Apollo Client" sets it up: HttpLink with
 * `enhancedClientAwareness: { transport: false }` (or `includeExtensions: false`), GraphQLWsLink
 * over graphql-ws. A query, a subscription (GraphQLWsLink's `extensions: {}` read as absent), and
 * a refusal whose code the app reads from `CombinedGraphQLErrors` (refusals come as
 * `application/graphql-response+json`, the type Apollo asks for). Apollo's defaults send
 * `extensions.clientLibrary`: refused 400, with the sentence naming the settings.
 */
import assert from 'node:assert/strict';
import {
  ApolloClient,
  ApolloLink,
  CombinedGraphQLErrors,
  gql,
  HttpLink,
  InMemoryCache,
} from '@apollo/client';
import { BatchHttpLink } from '@apollo/client/link/batch-http';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { assertNothingReached, forwarded } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';
import { BOOKINGS, BOT_QUERY, FOREIGN_BOT, graphqlUrl, socketClient } from './helpers.ts';

const BOT = gql(BOT_QUERY);
const SUBSCRIPTION = gql(BOOKINGS);

/** An Apollo client over `link`, set up as docs/clients.md says. */
function apollo(link: ApolloLink, defaults = false): ApolloClient {
  return new ApolloClient({
    link,
    cache: new InMemoryCache(),
    ...(defaults ? {} : { enhancedClientAwareness: { transport: false } }),
  });
}

/** The error `query` throws (Apollo's default errorPolicy), or null. */
async function queryError(client: ApolloClient, botID: string): Promise<unknown> {
  try {
    await client.query({ query: BOT, variables: { botID } });
    return null;
  } catch (error) {
    return error;
  }
}

/** Runs a subscription to its end: the data of each event, or the first error. */
function subscribe(client: ApolloClient, botID: string) {
  const data: unknown[] = [];
  return new Promise<{ data: unknown[]; error?: unknown }>((resolve) => {
    client.subscribe({ query: SUBSCRIPTION, variables: { botID } }).subscribe({
      next: (result) =>
        result.error ? resolve({ data, error: result.error }) : data.push(result.data),
      error: (error) => resolve({ data, error }),
      complete: () => resolve({ data }),
    });
  });
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] Apollo Client over HTTP: query, refusal code, the default's extensions`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const uri = graphqlUrl(gateway.url);
      for (
        const client of [
          apollo(new HttpLink({ uri })),
          apollo(new HttpLink({ uri, includeExtensions: false }), true),
        ]
      ) {
        const result = await client.query({ query: BOT, variables: { botID: WORLD_IDS.bot1 } });
        assert.equal((result.data as { bot: { id: string } }).bot.id, WORLD_IDS.bot1);
      }
      const batched = apollo(new BatchHttpLink({ uri, includeExtensions: false }), true);
      const both = await Promise.all(
        [WORLD_IDS.bot1, WORLD_IDS.bot2].map((botID) =>
          batched.query({ query: BOT, variables: { botID } })
        ),
      );
      assert.deepEqual(both.map((r) => (r.data as { bot: { id: string } }).bot.id), [
        WORLD_IDS.bot1,
        WORLD_IDS.bot2,
      ]);
      for (const r of forwarded(sandbox)) assert.equal(r.bodyText!.includes('extensions'), false);
      await assertNothingReached(sandbox, async () => {
        const refused = await queryError(apollo(new HttpLink({ uri })), FOREIGN_BOT);
        assert.ok(CombinedGraphQLErrors.is(refused), String(refused));
        assert.equal(refused.errors[0].extensions?.code, 'BotNotAllowed');
        const defaults = await queryError(apollo(new HttpLink({ uri }), true), WORLD_IDS.bot1);
        assert.ok(CombinedGraphQLErrors.is(defaults), String(defaults));
        assert.equal(defaults.errors[0].extensions?.code, 'ProxyExtensionsUnsupported');
        assert.match(defaults.errors[0].message, /enhancedClientAwareness: \{ transport: false \}/);
      });
    });
  });

  Deno.test(`[${kind}] Apollo Client over the socket: subscription, refusal code`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const ws = socketClient(gateway.url);
      const client = apollo(new GraphQLWsLink(ws));
      try {
        const events = await subscribe(client, WORLD_IDS.bot1);
        assert.equal(events.error, undefined, String(events.error));
        assert.equal(events.data.length, 3);
        const subscribes = sandbox.sockets.flatMap((s) => s.subscribes);
        assert.equal(subscribes.length, 1);
        assert.equal('extensions' in (subscribes[0].payload as object), false);
        const refused = await subscribe(client, FOREIGN_BOT);
        assert.ok(CombinedGraphQLErrors.is(refused.error), String(refused.error));
        assert.equal(refused.error.errors[0].extensions?.code, 'BotNotAllowed');
        assert.equal(
          sandbox.sockets.flatMap((s) => s.subscribes).length,
          1,
          'no subscribe reached',
        );
      } finally {
        client.stop();
        await ws.dispose();
      }
    });
  });
}
