/**
 * operationName on both hosts, over HTTP and on the socket (SPEC "GraphQL
 * request entry": "the forwarded operation name comes from the parsed
 * document, never from the request"): a one-operation document naming
 * something else is forwarded with the document's own name (op= and the body
 * both carry it); a document defining several operations runs the one
 * operationName picks, and is refused 400 ProxyMalformedQuery when none or an
 * absent one is named, with nothing reaching the upstream.
 */
import assert from 'node:assert/strict';
import { type Client, createClient } from 'graphql-ws';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import {
  assertNothingReached,
  assertRefusal,
  forwarded,
  postGraphql,
} from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';

const ONE = 'query Me { currentUser { id } }';
const TWO = 'query Me { currentUser { id } } query Again { currentUser { id } }';
const BOOKINGS = 'subscription S($botID: BotID!) { bookingAdded(botID: $botID) { id } }';

function client(url: string): Client {
  return createClient({
    url: `${url.replace('http', 'ws')}/svc/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: true,
  });
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] a one-operation document naming something else is forwarded under its own name`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const res = await postGraphql(gateway.url, { query: ONE, operationName: 'SomethingElse' });
      const text = await res.text();
      assert.equal(res.status, 200, text);
      const seen = forwarded(sandbox).at(-1)!;
      assert.equal(seen.search, '?op=Me');
      assert.deepEqual(seen.json, { query: ONE, operationName: 'Me' });
      const anonymous = await postGraphql(gateway.url, {
        query: '{ currentUser { id } }',
        operationName: 'Named',
      });
      assert.equal(anonymous.status, 200, await anonymous.text());
      const anon = forwarded(sandbox).at(-1)!;
      assert.equal(anon.search, '', 'an anonymous operation travels without op=');
      assert.deepEqual(anon.json, { query: '{ currentUser { id } }' });
    });
  });

  Deno.test(`[${kind}] several operations: operationName picks one; none or an absent name is refused`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const res = await postGraphql(gateway.url, { query: TWO, operationName: 'Again' });
      assert.equal(res.status, 200, await res.text());
      const seen = forwarded(sandbox).at(-1)!;
      assert.equal(seen.search, '?op=Again');
      assert.deepEqual(seen.json, { query: TWO, operationName: 'Again' });
      await assertNothingReached(sandbox, async () => {
        const unnamed = await assertRefusal(
          await postGraphql(gateway.url, { query: TWO }),
          400,
          'ProxyMalformedQuery',
        );
        assert.match(unnamed, /several operations/);
        const absent = await assertRefusal(
          await postGraphql(gateway.url, { query: TWO, operationName: 'Missing' }),
          400,
          'ProxyMalformedQuery',
        );
        assert.match(absent, /none named Missing/);
      });
    });
  });

  Deno.test(`[${kind}] with a registry: the record's own name travels; several operations are not registrable`, async () => {
    await withGateway(kind, { options: { operations: [ONE] } }, async ({ sandbox, gateway }) => {
      const res = await postGraphql(gateway.url, { query: ONE, operationName: 'Other' });
      assert.equal(res.status, 200, await res.text());
      const seen = forwarded(sandbox).at(-1)!;
      assert.equal(seen.search, '?op=Me');
      assert.deepEqual(seen.json, { query: ONE, operationName: 'Me' });
      await assertNothingReached(sandbox, async () => {
        await assertRefusal(
          await postGraphql(gateway.url, { query: TWO, operationName: 'Me' }),
          403,
          'OperationNotInRegistry',
        );
      });
    });
  });

  Deno.test(`[${kind}] socket: a subscribe naming another operation is relayed under the document's name`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const c = client(gateway.url);
      try {
        const result = await new Promise<{ events: number; error?: unknown }>((resolve) => {
          let events = 0;
          c.subscribe({
            query: BOOKINGS,
            operationName: 'NotThisOne',
            variables: { botID: WORLD_IDS.bot1 },
          }, {
            next: () => void events++,
            error: (error) => resolve({ events, error }),
            complete: () => resolve({ events }),
          });
        });
        assert.equal(result.error, undefined, JSON.stringify(result.error));
        assert.equal(result.events, 3);
        const upstream = sandbox.sockets.at(-1)!;
        assert.deepEqual(upstream.subscribes[0].payload, {
          query: BOOKINGS,
          operationName: 'S',
          variables: { botID: WORLD_IDS.bot1 },
        });
      } finally {
        await c.dispose();
      }
    });
  });
}
