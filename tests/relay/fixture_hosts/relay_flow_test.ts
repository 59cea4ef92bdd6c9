/**
 * The relay's normal flow, on both hosts: a subscription end to end through the real graphql-ws
 * client, the relay's own connection_init upstream, re-serialisation, refusals as error frames,
 * the subscription ceiling, complete frames both ways, order behind a slow check, rewriting and
 * the fence's learning.
 */
import assert from 'node:assert/strict';
import { closeClient, collect, gqlClient, initialisedClient, ticks } from './fixtures/clients.ts';
import { testBothHosts, TOKEN, withWorld } from './fixtures/setup.ts';
import { waitFor } from './fixtures/upstream.ts';

const TICKS = 'subscription T($c: Int!, $i: Int!) { ticks(count: $c, intervalMs: $i) }';

testBothHosts(
  'a subscription delivers its events end to end',
  (kind) =>
    withWorld(kind, {}, async ({ host, upstream }) => {
      const { client } = gqlClient(host.url, { authToken: 'browser-session-token', extra: 1 });
      const results = await collect(client, TICKS, { c: 5, i: 5 });
      assert.deepEqual(results, [0, 1, 2, 3, 4].map((i) => ({ data: { ticks: i } })));
      await client.dispose();
      // The upstream saw the relay's own init, never the browser's.
      assert.deepEqual(upstream.initPayloads, [{ authToken: `Bearer ${TOKEN}` }]);
      assert.equal(
        upstream.frames[0],
        `{"type":"connection_init","payload":{"authToken":"Bearer ${TOKEN}"}}`,
      );
    }),
);

testBothHosts(
  'frames are re-serialised, never passed as received',
  (kind) =>
    withWorld(kind, {}, async ({ host, upstream }) => {
      const c = await initialisedClient(host.url, { authToken: 'x' });
      c.send(
        '{ "type" : "subscribe", "id":"a", "junk": true, "payload": {"query":"subscription { ticks(count: 1, intervalMs: 1) }",' +
          '"extensions":{"persistedQuery":1},"operationName":null,"more":2}}',
      );
      const next = await c.next();
      assert.deepEqual(next, { id: 'a', type: 'next', payload: { data: { ticks: 0 } } });
      assert.deepEqual(await c.next(), { id: 'a', type: 'complete' });
      c.send({ type: 'ping', payload: { n: 1 }, junk: 'dropped' });
      assert.deepEqual(await c.next(), { type: 'pong', payload: { n: 1 } });
      await closeClient(c);
      const seen = upstream.frames.slice(1);
      assert.equal(
        seen[0],
        '{"id":"a","type":"subscribe","payload":{"query":"subscription { ticks(count: 1, intervalMs: 1) }"}}',
      );
      assert.equal(seen[1], '{"type":"ping","payload":{"n":1}}');
    }),
);

testBothHosts(
  'a refused subscribe is an error frame on its id and the socket stays open',
  (kind) =>
    withWorld(kind, {
      deps: (base) => ({
        ...base,
        checkSubscribe: (payload, admitted) => {
          const query = (payload as { query?: unknown }).query;
          if (typeof query === 'string' && query.includes('__schema')) {
            return Promise.resolve({
              ok: false,
              code: 'IntrospectionBlocked',
              message: 'No introspection',
            });
          }
          return base.checkSubscribe(payload, admitted);
        },
      }),
    }, async ({ host, upstream }) => {
      const c = await initialisedClient(host.url);
      c.send({
        id: 'bad',
        type: 'subscribe',
        payload: { query: '{ __schema { types { name } } }' },
      });
      assert.deepEqual(await c.next(), {
        id: 'bad',
        type: 'error',
        payload: [{ message: 'No introspection', extensions: { code: 'IntrospectionBlocked' } }],
      });
      c.send(ticks('good', 1));
      assert.deepEqual(await c.next(), {
        id: 'good',
        type: 'next',
        payload: { data: { ticks: 0 } },
      });
      assert.deepEqual(await c.next(), { id: 'good', type: 'complete' });
      assert.ok(!upstream.frames.some((f) => f.includes('__schema')), 'refused reached upstream');
      assert.equal(c.ws.readyState, WebSocket.OPEN);
      await closeClient(c);
    }),
);

testBothHosts(
  'TooManySubscriptions at 129; complete frees slots both ways',
  (kind) =>
    withWorld(kind, {}, async ({ host }) => {
      const c = await initialisedClient(host.url);
      const frames = () => c.frames;
      const tooMany = (id: string) => ({
        id,
        type: 'error',
        payload: [{
          message: 'Too many subscriptions are open on this socket',
          extensions: { code: 'TooManySubscriptions' },
        }],
      });
      for (let i = 0; i < 128; i++) c.send(ticks(`s${i}`, 1_000, 1_000));
      await waitFor(() => host.relay.stats().subscriptions === 128);
      c.send(ticks('over', 1));
      await waitFor(() => frames().some((f) => f.id === 'over'));
      assert.deepEqual(frames().find((f) => f.id === 'over'), tooMany('over'));
      // The browser completes s0: its slot is free again.
      c.send({ id: 's0', type: 'complete' });
      await waitFor(() => host.relay.stats().subscriptions === 127);
      // A subscription the upstream completes frees its slot too.
      c.send(ticks('short', 1, 1));
      await waitFor(() => frames().some((f) => f.id === 'short' && f.type === 'complete'));
      assert.equal(host.relay.stats().subscriptions, 127);
      c.send(ticks('last', 1_000, 1_000));
      await waitFor(() => host.relay.stats().subscriptions === 128);
      c.send(ticks('over2', 1));
      await waitFor(() => frames().some((f) => f.id === 'over2'));
      assert.deepEqual(frames().find((f) => f.id === 'over2'), tooMany('over2'));
      assert.ok(c.ws.readyState === WebSocket.OPEN);
      await closeClient(c);
    }),
);

testBothHosts('frames behind a slow check keep their order', (kind) => {
  const order: string[] = [];
  return withWorld(kind, {
    deps: (base) => ({
      ...base,
      checkSubscribe: async (payload, admitted) => {
        const q = (payload as { query: string }).query;
        order.push(`check ${q.includes('slow') ? 'slow' : 'fast'}`);
        if (q.includes('slow')) await new Promise((resolve) => setTimeout(resolve, 50));
        return base.checkSubscribe(payload, admitted);
      },
    }),
  }, async ({ host, upstream }) => {
    const c = await initialisedClient(host.url);
    const slow = ticks('1', 1_000, 1_000);
    (slow.payload as { query: string }).query += ' # slow';
    c.send(slow);
    c.send({ id: '1', type: 'complete' });
    c.send(ticks('2', 1));
    await waitFor(() => c.frames.some((f) => f.id === '2' && f.type === 'complete'));
    const seen = upstream.frames.slice(1).map((f) => JSON.parse(f)).map((f) => `${f.type} ${f.id}`);
    assert.deepEqual(seen, ['subscribe 1', 'complete 1', 'subscribe 2']);
    assert.deepEqual(order, ['check slow', 'check fast']);
    await closeClient(c);
  });
});

testBothHosts('answers are rewritten and a subscription teaches the fence', (kind) => {
  const learned: string[] = [];
  return withWorld(kind, {
    deps: (base) => ({
      ...base,
      rewriteErrors: (result) => {
        const errors = result.errors as { message: string }[] | undefined;
        if (!errors) return result;
        return {
          ...result,
          errors: errors.map((e) =>
            e.message.includes('internal-')
              ? {
                message: 'An upstream service failed',
                extensions: { code: 'UpstreamServiceError' },
              }
              : e
          ),
        };
      },
      checkSubscribe: async (payload, admitted) => {
        const verdict = await base.checkSubscribe(payload, admitted);
        return verdict.ok ? { ...verdict, learn: (text: string) => learned.push(text) } : verdict;
      },
    }),
  }, async ({ host }) => {
    const c = await initialisedClient(host.url);
    c.send({ id: 'f', type: 'subscribe', payload: { query: 'subscription { failing }' } });
    const next = await c.next();
    assert.deepEqual(next, {
      id: 'f',
      type: 'next',
      payload: {
        data: { failing: null },
        errors: [{
          message: 'An upstream service failed',
          extensions: { code: 'UpstreamServiceError' },
        }],
      },
    });
    c.send(ticks('t', 2));
    await waitFor(() => c.frames.some((f) => f.id === 't' && f.type === 'complete'));
    assert.deepEqual(learned.slice(1).map((t) => JSON.parse(t)), [
      { data: { ticks: 0 } },
      { data: { ticks: 1 } },
    ]);
    await closeClient(c);
  });
});
