// Node 20 side of tests/clients/node20_test.ts (docs/clients.md "A WebSocket on Node 20"): runs
// graphql-ws's createClient and Apollo Client's GraphQLWsLink under `node` against the gateway at
// argv[2], from the packages deno.json pins (node_modules/), and prints one JSON line of what each
// saw. The bot ids are argv[3] (one the deployment may use) and argv[4] (one it may not).
import { ApolloClient, CombinedGraphQLErrors, gql, InMemoryCache } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { createServer } from 'node:net';

const [url, own, foreign] = process.argv.slice(2);
const query = 'subscription S($botID: BotID!) { bookingAdded(botID: $botID) { id } }';
const out = { node: process.version, globalWebSocket: typeof globalThis.WebSocket };

// without a WebSocket implementation createClient throws at once (its message names `ws`)
try {
  await createClient({ url, retryAttempts: 0 }).dispose();
  out.withoutImpl = 'no error';
} catch (e) {
  out.withoutImpl = String(e?.message ?? e);
}

const client = createClient({ url, webSocketImpl: WebSocket, retryAttempts: 0 });
const events = [];
for await (const e of client.iterate({ query, variables: { botID: own } })) events.push(e);
out.graphqlWsEvents = events.length;
out.graphqlWsRefusal = await client.iterate({ query, variables: { botID: foreign } }).next()
  .then(() => null, (e) => e?.[0]?.extensions?.code ?? String(e));
await client.dispose();

/** A loopback address nothing listens on (a port listened on, then closed). */
async function deadUrl() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return `ws://127.0.0.1:${port}/svc/graphql`;
}

/** What Apollo's socket link reports when its socket cannot connect (or what it throws). */
async function failedSocket() {
  const c = createClient({ url: await deadUrl(), webSocketImpl: WebSocket, retryAttempts: 0 });
  const a = new ApolloClient({ link: new GraphQLWsLink(c), cache: new InMemoryCache() });
  const seen = await new Promise((resolve) => {
    const uncaught = (e) => resolve(`uncaught ${e}`);
    process.once('uncaughtException', uncaught);
    const done = (text) => {
      process.off('uncaughtException', uncaught);
      resolve(text);
    };
    a.subscribe({ query: gql(query), variables: { botID: own } }).subscribe({
      next: (r) => done(`error ${r.error?.message}`),
      error: (e) => done(`error ${e?.message}`),
    });
  });
  a.stop();
  await c.dispose();
  return seen;
}

// Apollo's link reads the global WebSocket when a socket fails: on Node 20 set it
if (typeof globalThis.WebSocket === 'undefined') out.failedWithoutGlobal = await failedSocket();
globalThis.WebSocket ??= WebSocket;
out.failedWithGlobal = await failedSocket();
const ws = createClient({ url, webSocketImpl: WebSocket, retryAttempts: 0 });
const apollo = new ApolloClient({ link: new GraphQLWsLink(ws), cache: new InMemoryCache() });
const run = (botID) =>
  new Promise((resolve) => {
    const data = [];
    apollo.subscribe({ query: gql(query), variables: { botID } }).subscribe({
      next: (r) => r.error ? resolve({ data, error: r.error }) : data.push(r.data),
      error: (error) => resolve({ data, error }),
      complete: () => resolve({ data }),
    });
  });
const ok = await run(own);
out.apolloEvents = ok.data.length;
const refused = await run(foreign);
out.apolloRefusal = CombinedGraphQLErrors.is(refused.error)
  ? refused.error.errors[0]?.extensions?.code
  : String(refused.error);
apollo.stop();
await ws.dispose();
console.log(JSON.stringify(out));
