/**
 * WS /svc/graphql through the whole gateway on both hosts, driven by the real
 * graphql-ws client against the sandbox's real graphql-ws server: events end
 * to end, the upstream sees only the relay's own init payload, refusals as
 * error frames on the right id with the socket left open (SPEC "Route table"
 * WS row, "Events", socket paragraph of the check order).
 */
import assert from 'node:assert/strict';
import { type Client, createClient } from 'graphql-ws';
import {
  type Sandbox,
  SANDBOX_TOKEN,
  subgraphSentence,
  WORLD_IDS,
} from '../../../scripts/sandbox/mod.ts';
import { assertRefusal, postGraphql } from '../../helpers/assertions.ts';
import { HOSTS } from '../../helpers/gateway.ts';
import { withGateway } from '../../helpers/setup.ts';
import { gauge } from '../../helpers/metrics.ts';

const BOOKINGS = 'subscription S($botID: BotID!) { bookingAdded(botID: $botID) { id } }';

function client(url: string, payload: Record<string, unknown> = {}): Client {
  return createClient({
    url: `${url.replace('http', 'ws')}/svc/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: payload,
    retryAttempts: 0,
    lazy: true,
  });
}

/**
 * A client that keeps its one socket between subscriptions (a lazy client closes it once none
 * is left); `sockets.opened` counts the sockets it opened, `sockets.closed` those that closed.
 */
function keptClient(url: string) {
  const sockets = { opened: 0, closed: 0 };
  const c = createClient({
    url: `${url.replace('http', 'ws')}/svc/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: true,
    lazyCloseTimeout: 60_000,
    on: { connected: () => void sockets.opened++, closed: () => void sockets.closed++ },
  });
  return { c, sockets };
}

/** Bot-fence questions the sandbox was asked (the gateway's own SvcWorkspaceBots call). */
const fenceCalls = (sandbox: Sandbox) =>
  sandbox.received.filter((r) => r.search === '?op=SvcWorkspaceBots').length;

/** Collects a subscription until it completes or errors. */
function collect(c: Client, query: string, variables: Record<string, unknown>) {
  const events: unknown[] = [];
  return new Promise<{ events: unknown[]; error?: unknown }>((resolve) => {
    c.subscribe({ query, variables }, {
      next: (value) => void events.push(value),
      error: (error) => resolve({ events, error }),
      complete: () => resolve({ events }),
    });
  });
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] a subscription delivers its events through the relay`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const c = client(gateway.url, { authToken: 'Bearer browser-should-not-travel', extra: 1 });
      try {
        const result = await collect(c, BOOKINGS, { botID: WORLD_IDS.bot1 });
        assert.equal(result.error, undefined, JSON.stringify(result.error));
        assert.equal(result.events.length, 3);
        assert.ok(
          (result.events[0] as { data: { bookingAdded: { id: string } } }).data.bookingAdded.id,
        );
        const upstream = sandbox.sockets.at(-1)!;
        assert.deepEqual(upstream.initPayload, { authToken: `Bearer ${SANDBOX_TOKEN}` });
        assert.equal(upstream.subscribes.length, 1);
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

  Deno.test(`[${kind}] refusals are error frames on their id; the socket stays open`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const { c, sockets: browser } = keptClient(gateway.url);
      try {
        const foreign = await collect(c, BOOKINGS, { botID: 'ffffffffffffffffffffffff' });
        const errors = foreign.error as { message: string; extensions: { code: string } }[];
        assert.equal(errors[0].extensions.code, 'BotNotAllowed');
        const introspection = await collect(c, 'subscription { __schema { types { name } } }', {});
        assert.equal(
          (introspection.error as { extensions: { code: string } }[])[0].extensions.code,
          'IntrospectionBlocked',
        );
        const ok = await collect(c, BOOKINGS, { botID: WORLD_IDS.bot2 });
        assert.equal(ok.events.length, 3, 'the socket still relays');
        assert.deepEqual(browser, { opened: 1, closed: 0 }, 'one socket, never closed');
        const sockets = sandbox.sockets.filter((s) => s.subscribes.length > 0);
        assert.equal(sockets.length, 1);
        assert.equal(
          sockets[0].subscribes.length,
          1,
          'refused subscribes never reached the upstream',
        );
      } finally {
        await c.dispose();
      }
    });
  });
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] a burst of 100 subscribes is relayed without holding frames (fence cached)`, async () => {
    await withGateway(kind, { env: { METRICS: '1' } }, async ({ sandbox, gateway }) => {
      const { c, sockets: browser } = keptClient(gateway.url);
      const held = () => gauge(gateway.url, 'svc_relay_held_frames_total');
      try {
        await collect(c, BOOKINGS, { botID: WORLD_IDS.bot1 }); // warms the bot fence
        const asked = fenceCalls(sandbox);
        assert.ok(asked > 0, 'the warm-up asked the fence');
        const heldBefore = await held();
        const results = await Promise.all(
          Array.from({ length: 100 }, () => collect(c, BOOKINGS, { botID: WORLD_IDS.bot2 })),
        );
        assert.equal(
          results.filter((r) => r.error === undefined && r.events.length === 3).length,
          100,
        );
        // the fence answered from its cache (no lookup, so no frame held behind one), on the
        // socket and upstream leg the warm-up opened
        assert.equal(fenceCalls(sandbox), asked, 'no fence call during the burst');
        assert.equal(
          await held(),
          heldBefore,
          `no frame held during the burst (${heldBefore} -> ${await held()})`,
        );
        assert.deepEqual(browser, { opened: 1, closed: 0 });
        const legs = sandbox.sockets.filter((u) => u.subscribes.length > 0);
        assert.deepEqual(legs.map((u) => u.subscribes.length), [101], 'one upstream leg');
      } finally {
        await c.dispose();
      }
    });
  });
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] upstream error frames get the sentence rewriting; a one-bot subscription teaches the fence`, async () => {
    await withGateway(
      kind,
      { env: { SVC_RESOURCE_FENCE: 'bound' } },
      async ({ sandbox, gateway }) => {
        const c = client(gateway.url);
        try {
          const taught = await collect(c, BOOKINGS, { botID: WORLD_IDS.bot1 });
          const bookingId =
            (taught.events[0] as { data: { bookingAdded: { id: string } } }).data.bookingAdded.id;
          assert.match(bookingId, /^[0-9a-f]{24}$/);
          const flow =
            'query F($botID: BotID!, $flowID: FlowID!) { bot(id: $botID) { flow(flowID: $flowID) { id } } }';
          const res = await postGraphql(gateway.url, {
            query: flow,
            variables: { botID: WORLD_IDS.bot2, flowID: bookingId },
          });
          await assertRefusal(res, 403, 'ResourceNotAllowed');
          sandbox.switches.errors = { errors: [{ message: subgraphSentence('bookings') }] };
          const failed = await collect(c, BOOKINGS, { botID: WORLD_IDS.bot1 });
          const errors = failed.error as { message: string; extensions?: { code?: string } }[];
          assert.equal(errors[0].message, 'The upstream service rejected the request.');
          assert.equal(errors[0].extensions?.code, 'UpstreamServiceError');
        } finally {
          await c.dispose();
        }
      },
    );
  });
}
