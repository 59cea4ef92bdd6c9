/**
 * Step 9 of SPEC "Order in which a GraphQL body is checked" ("no entry carries extensions") as
 * docs/readings.md "Readings of the spec's rules" reads it, on both hosts, on the POST and on
 * the socket: `extensions` that is `null` or `{}` is read as absent and the entry is forwarded
 * without it (the body is rebuilt from query, operationName and variables); any other value is
 * refused 400 ProxyExtensionsUnsupported (an error frame on the socket) with the sentence naming
 * Apollo Client's settings, and nothing reaches the upstream.
 */
import assert from 'node:assert/strict';
import { type Client, createClient } from 'graphql-ws';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { assertNothingReached, assertRefusal, postGraphql } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';
import { EXTENSIONS_SENTENCE } from '../../src/admission/entries.ts';

const Q = { query: '{ currentUser { id } }' };
const BOOKINGS = 'subscription S($botID: BotID!) { bookingAdded(botID: $botID) { id } }';

/** Values that carry something: refused. */
const CARRYING: unknown[] = [
  { clientLibrary: { name: '@apollo/client', version: '4.0.0' } },
  { persistedQuery: { version: 1, sha256Hash: 'ab' } },
  [],
  0,
  false,
  '',
  'x',
];

function client(url: string): Client {
  return createClient({
    url: `${url.replace('http', 'ws')}/svc/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: true,
    lazyCloseTimeout: 60_000,
  });
}

/** Runs one subscription (with `extensions` in its payload) until it completes or errors. */
function collect(c: Client, extensions: unknown) {
  const events: unknown[] = [];
  const payload = { query: BOOKINGS, variables: { botID: WORLD_IDS.bot1 }, extensions };
  return new Promise<{ events: unknown[]; error?: unknown }>((resolve) => {
    c.subscribe(payload as { query: string }, {
      next: (value) => void events.push(value),
      error: (error) => resolve({ events, error }),
      complete: () => resolve({ events }),
    });
  });
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] POST: extensions null or {} are read as absent and never forwarded`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      for (const body of [{ ...Q, extensions: {} }, { ...Q, extensions: null }]) {
        const res = await postGraphql(gateway.url, body);
        assert.equal(res.status, 200, await res.clone().text());
        assert.ok((await res.json()).data.currentUser.id);
      }
      const batch = await postGraphql(gateway.url, [{ ...Q, extensions: {} }, {
        ...Q,
        extensions: null,
      }]);
      assert.equal(batch.status, 200);
      assert.equal((await batch.json()).length, 2);
      const graphql = sandbox.received.filter((r) => r.path === '/graphql');
      assert.equal(graphql.length, 3);
      for (const r of graphql) assert.equal(r.bodyText!.includes('extensions'), false, r.bodyText!);
    });
  });

  Deno.test(`[${kind}] POST: extensions that carry anything are refused 400, naming Apollo's settings`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      await assertNothingReached(sandbox, async () => {
        for (const extensions of CARRYING) {
          const res = await postGraphql(gateway.url, { ...Q, extensions });
          const message = await assertRefusal(res, 400, 'ProxyExtensionsUnsupported');
          assert.equal(message, EXTENSIONS_SENTENCE);
        }
        assert.match(EXTENSIONS_SENTENCE, /includeExtensions: false/);
        assert.match(EXTENSIONS_SENTENCE, /enhancedClientAwareness: \{ transport: false \}/);
        // one carrying entry refuses the whole batch, beside an empty one
        await assertRefusal(
          await postGraphql(gateway.url, [{ ...Q, extensions: {} }, { ...Q, extensions: [] }]),
          400,
          'ProxyExtensionsUnsupported',
        );
      });
    });
  });

  Deno.test(`[${kind}] socket: a subscribe with extensions {} or null is relayed without them`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const c = client(gateway.url);
      try {
        for (const extensions of [{}, null]) {
          const result = await collect(c, extensions);
          assert.equal(result.error, undefined, JSON.stringify(result.error));
          assert.equal(result.events.length, 3);
        }
        const subscribes = sandbox.sockets.flatMap((s) => s.subscribes);
        assert.equal(subscribes.length, 2);
        for (const s of subscribes) {
          assert.deepEqual(Object.keys(s.payload as object).sort(), [
            'operationName',
            'query',
            'variables',
          ]);
        }
      } finally {
        await c.dispose();
      }
    });
  });

  Deno.test(`[${kind}] socket: a subscribe with extensions that carry anything is an error frame`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const c = client(gateway.url);
      try {
        // (graphql-ws's client itself refuses to send extensions that are not an object)
        for (const extensions of CARRYING.slice(0, 2)) {
          const result = await collect(c, extensions);
          const errors = result.error as { message: string; extensions: { code: string } }[];
          assert.equal(errors[0].extensions.code, 'ProxyExtensionsUnsupported');
          assert.equal(errors[0].message, EXTENSIONS_SENTENCE);
        }
        // the relay's upstream socket opens at connection_init; no subscribe reached it
        assert.deepEqual(sandbox.sockets.flatMap((s) => s.subscribes), []);
      } finally {
        await c.dispose();
      }
    });
  });
}
