/**
 * JSON nesting on the socket, on both hosts (docs/configuration.md JSON_MAX_DEPTH; SPEC "Events"
 * 1: a frame that is not one of the protocol's closes 4400): a subscribe frame at the limit is
 * relayed, one level deeper (and 100,000 deep) closes the socket 4400 before it is parsed, with no
 * subscribe reaching the upstream. An upstream frame nested past DEFAULTS.jsonDepthHardMax is a
 * bad upstream frame (the browser gets 1012 and reconnects), never a crash of the process; one at
 * that depth is relayed (docs/readings.md "JSON nesting depth").
 */
import assert from 'node:assert/strict';
import { WebSocket as WsClient } from 'ws';
import { type Sandbox, WORLD_IDS } from '../../../scripts/sandbox/mod.ts';
import { DEFAULTS } from '../../../src/config/defaults.ts';
import { postGraphql } from '../../helpers/assertions.ts';
import { nest } from '../../helpers/deep_json.ts';
import { HOSTS } from '../../helpers/gateway.ts';
import { withGateway } from '../../helpers/setup.ts';

const BOOKINGS = 'subscription S($botID: BotID!) { bookingAdded(botID: $botID) { id } }';
const LIMIT = DEFAULTS.jsonMaxDepth;
const HARD_MAX = DEFAULTS.jsonDepthHardMax;

/**
 * A subscribe frame of depth `depth`: the frame is 1, its payload 2, `variables` 3, and
 * `variables.x` holds the arrays from 4 on.
 */
function subscribeFrame(id: string, depth: number): string {
  const variables = `{"botID":"${WORLD_IDS.bot1}","x":${nest(depth - 3)}}`;
  return `{"id":"${id}","type":"subscribe","payload":{"query":${
    JSON.stringify(BOOKINGS)
  },"variables":${variables}}}`;
}

/**
 * The browser sockets a test opened and has not seen close: {@link closingSockets} closes them
 * (one left open would keep the Node host's child from stopping, and the test from ending).
 */
const OPEN = new Set<WsClient>();

/** Runs `body`, then closes every browser socket it left open. */
async function closingSockets(body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } finally {
    for (const ws of OPEN) ws.close(1000);
    OPEN.clear();
  }
}

/** A browser socket that sends text as given; every frame received (parsed) and the close. */
async function rawBrowser(url: string) {
  const ws = new WsClient(`${url.replace('http', 'ws')}/svc/graphql`, 'graphql-transport-ws');
  OPEN.add(ws);
  ws.on('close', () => OPEN.delete(ws));
  const frames: { type: string; id?: string; payload?: unknown }[] = [];
  const arrived = new Set<() => void>();
  ws.on('message', (data) => {
    frames.push(JSON.parse(String(data)));
    for (const wake of arrived) wake();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: String(reason) }))
  );
  await new Promise((resolve, reject) => {
    ws.on('open', resolve);
    ws.on('error', reject);
  });
  /** Resolves once a frame of one of `types` has arrived. */
  const frame = (...types: string[]) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!frames.some((f) => types.includes(f.type))) return;
        arrived.delete(check);
        resolve();
      };
      arrived.add(check);
      check();
    });
  /** The close, or null when a subscription's frame came first (the socket then stays open). */
  const closedFirst = () =>
    Promise.race([closed, frame('next', 'error', 'complete').then(() => null)]);
  return { frames, closed, frame, closedFirst, sendText: (text: string) => ws.send(text) };
}

/** A socket past connection_ack. */
async function ackedBrowser(url: string) {
  const b = await rawBrowser(url);
  b.sendText('{"type":"connection_init","payload":{}}');
  await b.frame('connection_ack');
  return b;
}

/** Subscribes that reached the upstream, over every socket. */
const subscribesUpstream = (sandbox: Sandbox) =>
  sandbox.sockets.reduce((n, s) => n + s.subscribes.length, 0);

for (const kind of HOSTS) {
  Deno.test(`[${kind}] a subscribe at JSON_MAX_DEPTH is relayed; one deeper closes 4400 unparsed`, async () => {
    await withGateway(kind, {}, ({ sandbox, gateway }) =>
      closingSockets(async () => {
        const ok = await ackedBrowser(gateway.url);
        ok.sendText(subscribeFrame('1', LIMIT));
        await ok.frame('complete');
        assert.ok(ok.frames.some((f) => f.type === 'next' && f.id === '1'), 'events relayed');
        const relayed = sandbox.sockets.at(-1)!.subscribes.at(-1)!;
        assert.deepEqual(relayed.payload.variables?.x, JSON.parse(nest(LIMIT - 3)));

        for (const depth of [LIMIT + 1, 100_000]) {
          const before = subscribesUpstream(sandbox);
          const deep = await ackedBrowser(gateway.url);
          deep.sendText(subscribeFrame('2', depth));
          assert.deepEqual(await deep.closedFirst(), {
            code: 4400,
            reason: `Frame nests deeper than ${LIMIT} levels`,
          });
          assert.equal(subscribesUpstream(sandbox), before, 'no subscribe reached the upstream');
          assert.ok(!deep.frames.some((f) => f.type === 'next' || f.type === 'error'));
        }
      }));
  });

  Deno.test(`[${kind}] a first frame nested past the limit is not an init: close 4401`, async () => {
    await withGateway(kind, {}, ({ sandbox, gateway }) =>
      closingSockets(async () => {
        const b = await rawBrowser(gateway.url);
        b.sendText(`{"type":"connection_init","payload":{"x":${nest(LIMIT - 1)}}}`);
        const first = await Promise.race([b.closed, b.frame('connection_ack').then(() => null)]);
        assert.equal(first?.code, 4401, 'closed before any ack');
        assert.equal(sandbox.sockets.length, 0, 'no upstream socket opened');
      }));
  });

  Deno.test(`[${kind}] an upstream frame past ${HARD_MAX} levels drops the upstream (1012), never the process`, async () => {
    await withGateway(kind, {}, ({ sandbox, gateway }) =>
      closingSockets(async () => {
        // an error frame: the frame 1, its payload 2, the entry 3, extensions 4, arrays from 5
        const upstreamError = (depth: number) => {
          sandbox.switches.errors = {
            errors: [{ message: 'refused', extensions: { deep: JSON.parse(nest(depth - 4)) } }],
            match: { rootField: 'bookingAdded' },
          };
        };
        upstreamError(HARD_MAX);
        const atMax = await ackedBrowser(gateway.url);
        atMax.sendText(subscribeFrame('1', 4));
        await atMax.frame('error');
        const error = atMax.frames.find((f) => f.type === 'error')!;
        const entries = error.payload as { extensions: { deep: unknown } }[];
        assert.deepEqual(entries[0].extensions.deep, JSON.parse(nest(HARD_MAX - 4)));

        for (const depth of [HARD_MAX + 1, 100_000]) {
          upstreamError(depth);
          const past = await ackedBrowser(gateway.url);
          past.sendText(subscribeFrame('1', 4));
          assert.deepEqual(await past.closedFirst(), {
            code: 1012,
            reason: 'upstream disconnected',
          });
          assert.ok(!past.frames.some((f) => f.type === 'error'), 'nothing of the frame relayed');
        }
        // the process still answers
        sandbox.switches.errors = null;
        const after = await postGraphql(gateway.url, { query: '{ currentUser { id } }' });
        assert.equal(after.status, 200, await after.text());
      }));
  });
}
