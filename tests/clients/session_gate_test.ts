/**
 * The session token behind the gate (SPEC "Authentication" 2 and 3), as each client of
 * docs/clients.md carries it, on both hosts with the gate fixture (tests/gate/helpers.ts: user A
 * owns bots 1 and 2): over HTTP `authorization: Bearer <session token>` (Apollo's HttpLink
 * `headers`, urql's `fetchOptions`, graphql-request's `headers`); on the socket only
 * `connectionParams: { authToken: 'Bearer <session token>' }`. Apollo's usual
 * `{ authorization }` in connectionParams is closed 4401 AuthSessionRequired before any upstream
 * socket opens; a request without the token is 401 AuthSessionRequired, its code read in each
 * client.
 */
import assert from 'node:assert/strict';
import { ApolloClient, CombinedGraphQLErrors, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { Client as UrqlClient, fetchExchange } from '@urql/core';
import { ClientError, GraphQLClient } from 'graphql-request';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { startPostgres } from '../fixtures/db/postgres.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { withGateOn } from '../gate/helpers.ts';
import { BOOKINGS, BOT_QUERY, firstCode, graphqlUrl, socketClient } from './helpers.ts';

const BOT = gql(BOT_QUERY);
const SUBSCRIPTION = gql(BOOKINGS);

/** The first outcome of an Apollo subscription: its data, or its error. */
function firstOutcome(client: ApolloClient, botID: string) {
  return new Promise<{ data?: unknown; error?: unknown }>((resolve) => {
    client.subscribe({ query: SUBSCRIPTION, variables: { botID } }).subscribe({
      next: (result) => resolve(result.error ? { error: result.error } : { data: result.data }),
      error: (error) => resolve({ error }),
      complete: () => resolve({}),
    });
  });
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] each client carries the session token behind the gate`, async (t) => {
    const cluster = await startPostgres();
    try {
      await withGateOn(kind, cluster, {}, async ({ sandbox, gateway, users }) => {
        const uri = graphqlUrl(gateway.url);
        const authorization = `Bearer ${users.a.jwt}`;
        const variables = { botID: WORLD_IDS.bot1 };

        await t.step('Apollo Client: HttpLink headers, GraphQLWsLink authToken', async () => {
          const http = new ApolloClient({
            link: new HttpLink({ uri, headers: { authorization } }),
            cache: new InMemoryCache(),
            enhancedClientAwareness: { transport: false },
          });
          const result = await http.query({ query: BOT, variables });
          assert.equal((result.data as { bot: { id: string } }).bot.id, WORLD_IDS.bot1);
          const anonymous = new ApolloClient({
            link: new HttpLink({ uri }),
            cache: new InMemoryCache(),
            enhancedClientAwareness: { transport: false },
          });
          const refused = await anonymous.query({ query: BOT, variables }).catch((e) => e);
          assert.ok(CombinedGraphQLErrors.is(refused), String(refused));
          assert.equal(refused.errors[0].extensions?.code, 'AuthSessionRequired');

          const ws = socketClient(gateway.url, { connectionParams: { authToken: authorization } });
          const socket = new ApolloClient({
            link: new GraphQLWsLink(ws),
            cache: new InMemoryCache(),
          });
          try {
            const first = await firstOutcome(socket, WORLD_IDS.bot1);
            assert.equal(first.error, undefined, String(first.error));
            assert.ok(first.data);
          } finally {
            await ws.dispose();
          }
          const opened = sandbox.sockets.length;
          const usual = socketClient(gateway.url, { connectionParams: { authorization } });
          const wrong = new ApolloClient({
            link: new GraphQLWsLink(usual),
            cache: new InMemoryCache(),
          });
          try {
            const closed = await firstOutcome(wrong, WORLD_IDS.bot1);
            assert.match(String((closed.error as Error)?.message), /4401.*AuthSessionRequired/);
          } finally {
            await usual.dispose();
          }
          assert.equal(sandbox.sockets.length, opened, 'the refused socket reached no upstream');
        });

        await t.step('urql: fetchOptions headers', async () => {
          const client = new UrqlClient({
            url: uri,
            preferGetMethod: false,
            fetchOptions: () => ({ headers: { authorization } }),
            exchanges: [fetchExchange],
          });
          const ok = await client.query(BOT, variables).toPromise();
          assert.equal((ok.data as { bot: { id: string } }).bot.id, WORLD_IDS.bot1);
          const anonymous = new UrqlClient({
            url: uri,
            preferGetMethod: false,
            exchanges: [fetchExchange],
          });
          const refused = await anonymous.query(BOT, variables).toPromise();
          assert.equal(refused.error?.graphQLErrors[0]?.extensions?.code, 'AuthSessionRequired');
        });

        await t.step('graphql-request: headers', async () => {
          const client = new GraphQLClient(uri, { headers: { authorization } });
          const data = await client.request<{ bot: { id: string } }>(BOT_QUERY, variables);
          assert.equal(data.bot.id, WORLD_IDS.bot1);
          const refused = await new GraphQLClient(uri).request(BOT_QUERY, variables).catch((e) =>
            e
          );
          assert.ok(refused instanceof ClientError);
          assert.equal(firstCode(refused.response.errors), 'AuthSessionRequired');
        });

        await t.step('graphql-ws: connectionParams authToken; authorization is 4401', async () => {
          const client = socketClient(gateway.url, {
            connectionParams: { authToken: authorization },
          });
          try {
            const events: unknown[] = [];
            for await (const e of client.iterate({ query: BOOKINGS, variables })) events.push(e);
            assert.equal(events.length, 3);
          } finally {
            await client.dispose();
          }
          const usual = socketClient(gateway.url, { connectionParams: { authorization } });
          try {
            const closed = await usual.iterate({ query: BOOKINGS, variables }).next().catch((e) =>
              e
            );
            assert.equal((closed as CloseEvent).code, 4401);
            assert.equal((closed as CloseEvent).reason, 'AuthSessionRequired');
          } finally {
            await usual.dispose();
          }
        });
      });
    } finally {
      await cluster.stop();
    }
  });
}
