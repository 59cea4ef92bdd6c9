/**
 * The close codes the relay decides on the browser's side, on both hosts (SPEC "WebSocket close
 * codes"): 4401 not-init-first and token missing, 4408, every 4400 cause, the gate's own codes
 * through the admission seam, 1013 from the check chain, 1012 at the deadline.
 */
import assert from 'node:assert/strict';
import {
  type Admission,
  type AdmittedSession,
  openWsUpstream,
  type SubscribeVerdict,
} from '../../../src/ws/mod.ts';
import { closeClient, initialisedClient, rawClient, ticks } from './fixtures/clients.ts';
import { testBothHosts, TOKEN, withWorld } from './fixtures/setup.ts';
import { type GraphqlUpstream, waitFor } from './fixtures/upstream.ts';

/** Opens a raw client, sends `frames` (objects as JSON, strings as is) and returns the close. */
async function closeAfter(url: string, frames: unknown[]) {
  const c = rawClient(url);
  await c.opened;
  for (const f of frames) c.send(f);
  return await c.closed;
}

testBothHosts(
  '4401 Unauthorized when the first frame is not connection_init',
  (kind) =>
    withWorld(kind, {}, async ({ host, upstream }) => {
      const unauthorized = { code: 4401, reason: 'Unauthorized' };
      assert.deepEqual(await closeAfter(host.url, [ticks('1', 1)]), unauthorized);
      assert.deepEqual(await closeAfter(host.url, ['not json']), unauthorized);
      assert.deepEqual(
        await closeAfter(host.url, [{ type: 'connection_init', payload: 'x' }]),
        unauthorized,
      );
      assert.equal(upstream.opened(), 0, 'no upstream socket was opened');
    }),
);

for (const [label, token] of [['absent', null], ['holding whitespace', 'abc def'], ['empty', '']]) {
  testBothHosts(
    `a master token ${label} is missing (4401)`,
    (kind) =>
      withWorld(kind, {
        deps: (b) => ({
          ...b,
          token: () => token,
        }),
      }, async ({ host, upstream }) => {
        const closed = await closeAfter(host.url, [{ type: 'connection_init' }]);
        assert.deepEqual(closed, { code: 4401, reason: 'svc proxy: token missing' });
        assert.equal(upstream.opened(), 0, 'no upstream socket was opened');
      }),
  );
}

testBothHosts(
  '4408 when no connection_init arrives in time',
  (kind) =>
    withWorld(
      kind,
      { deps: (b) => ({ ...b, limits: { ...b.limits, wsInitTimeoutMs: 50 } }) },
      async ({ host, upstream }) => {
        assert.deepEqual(await closeAfter(host.url, []), {
          code: 4408,
          reason: 'Connection initialisation timeout',
        });
        assert.equal(upstream.opened(), 0, 'no upstream socket was opened');
      },
    ),
);

const BAD_FRAMES: [string, unknown, string][] = [
  ['not JSON', '{nope', 'Frame is not JSON'],
  ['an unknown type', { type: 'bogus' }, 'Frame is not a graphql-transport-ws message'],
  ['no type', { id: '1' }, 'Frame is not a graphql-transport-ws message'],
  ['a JSON array', '[1]', 'Frame is not a graphql-transport-ws message'],
  [
    'a server-side type',
    { id: '1', type: 'next', payload: {} },
    'Frame type is not accepted from this side',
  ],
  ['complete without id', { type: 'complete' }, 'Frame needs a non-empty string id'],
  [
    'subscribe with a number id',
    { id: 5, type: 'subscribe', payload: { query: '{a}' } },
    'Frame needs a non-empty string id',
  ],
  [
    'subscribe with an empty id',
    { id: '', type: 'subscribe', payload: { query: '{a}' } },
    'Frame needs a non-empty string id',
  ],
  [
    'subscribe without payload',
    { id: '1', type: 'subscribe' },
    'Frame payload has the wrong shape',
  ],
  [
    'ping with a string payload',
    { type: 'ping', payload: 'x' },
    'Frame payload has the wrong shape',
  ],
  ['a second connection_init', { type: 'connection_init' }, 'Too many initialisation requests'],
];

/**
 * The frames the upstream received after `from` (an index into its frames), once every upstream
 * socket closed: the relay had its chance to pass an offending frame on.
 */
async function upstreamFramesAfter(upstream: GraphqlUpstream, from: number): Promise<string[]> {
  await waitFor(() => upstream.open() === 0, 3_000);
  return upstream.frames.slice(from);
}

testBothHosts(
  '4400 for every malformed frame after init; the frame is not relayed',
  (kind) =>
    withWorld(kind, {}, async ({ host, upstream }) => {
      for (const [label, frame, reason] of BAD_FRAMES) {
        const c = await initialisedClient(host.url);
        const from = upstream.frames.length;
        c.send(frame);
        assert.deepEqual(await c.closed, { code: 4400, reason }, label);
        const text = typeof frame === 'string' ? frame : JSON.stringify(frame);
        assert.ok(!(await upstreamFramesAfter(upstream, from)).includes(text), `${label} relayed`);
      }
      const c = await initialisedClient(host.url);
      const from = upstream.frames.length;
      c.ws.send(new Uint8Array([1, 2, 3]));
      assert.deepEqual(await c.closed, {
        code: 4400,
        reason: 'Binary frames are not part of graphql-transport-ws',
      });
      const after = await upstreamFramesAfter(upstream, from);
      assert.ok(after.every((f) => f.startsWith('{')), `binary relayed: ${after}`);
    }),
);

testBothHosts(
  '4409 for a subscribe on an id already open (graphql-transport-ws); the second is not relayed',
  (kind) =>
    withWorld(kind, {}, async ({ host, upstream }) => {
      const c = await initialisedClient(host.url);
      c.send(ticks('dup', 100, 1_000));
      c.send(ticks('dup', 100, 1_000));
      assert.deepEqual(await c.closed, {
        code: 4409,
        reason: 'Subscriber for this id already exists',
      });
      const subscribes = (await upstreamFramesAfter(upstream, 0))
        .filter((f) => JSON.parse(f).type === 'subscribe');
      assert.ok(subscribes.length <= 1, `${subscribes.length} subscribes for 'dup' relayed`);
    }),
);

testBothHosts(
  '4400 for a browser frame over 1 MiB; the frame is not relayed',
  (kind) =>
    withWorld(kind, {}, async ({ host, upstream }) => {
      const c = await initialisedClient(host.url);
      const query = `{ a } #${'x'.repeat(1024 * 1024)}`;
      c.send({ id: '1', type: 'subscribe', payload: { query } });
      assert.deepEqual(await c.closed, { code: 4400, reason: 'Frame too large' });
      const after = await upstreamFramesAfter(upstream, 0);
      assert.ok(after.every((f) => f.length < 1024 * 1024), 'the large frame was relayed');
    }),
);

/** An admission the test releases by hand, recording what the gate was given. */
function heldGate() {
  const seen: unknown[] = [];
  let release!: (a: Admission) => void;
  const pending = new Promise<Admission>((resolve) => release = resolve);
  const admit = (payload: unknown) => {
    seen.push(payload);
    return pending;
  };
  return { seen, admit, release: (a: Admission) => release(a) };
}

testBothHosts('4400 past 64 frames held before the upstream opens', (kind) => {
  const gate = heldGate();
  let released = 0;
  return withWorld(
    kind,
    { deps: (b) => ({ ...b, admit: gate.admit }) },
    async ({ host, upstream }) => {
      const c = rawClient(host.url);
      await c.opened;
      c.send({ type: 'connection_init', payload: { authToken: 'browser' } });
      for (let i = 0; i < 64; i++) c.send({ type: 'ping' });
      await waitFor(() => host.relay.stats().heldFrames === 64);
      assert.equal(host.relay.stats().preAuth, 1);
      c.send({ type: 'ping' });
      assert.deepEqual(await c.closed, {
        code: 4400,
        reason: 'Too many frames before the upstream opened',
      });
      // The gate answers after the socket is gone: the session is released at once.
      assert.equal(upstream.opened(), 0, 'no upstream socket was opened');
      gate.release({ ok: true, session: { release: () => released++ } });
      await waitFor(() => released === 1);
      assert.deepEqual(gate.seen, [{ authToken: 'browser' }]);
    },
  );
});

testBothHosts('4400 reaches a browser that keeps sending past the 64th held frame', (kind) => {
  const gate = heldGate();
  return withWorld(
    kind,
    { deps: (b) => ({ ...b, admit: gate.admit }) },
    async ({ host, upstream }) => {
      const c = rawClient(host.url);
      await c.opened;
      c.send({ type: 'connection_init' });
      // Deno's server socket used to drop the connection (1006) on a frame after its close frame.
      for (let i = 0; i < 200; i++) c.send({ type: 'ping' });
      assert.deepEqual(await c.closed, {
        code: 4400,
        reason: 'Too many frames before the upstream opened',
      });
      assert.equal(upstream.opened(), 0, 'no upstream socket was opened');
      gate.release({ ok: true, session: {} });
    },
  );
});

testBothHosts('a browser that never stops sending is still closed after the overflow', (kind) => {
  const gate = heldGate();
  return withWorld(
    kind,
    { deps: (b) => ({ ...b, admit: gate.admit }) },
    async ({ host, upstream }) => {
      const c = rawClient(host.url);
      await c.opened;
      c.send({ type: 'connection_init' });
      const flood = setInterval(() => {
        if (c.ws.readyState === WebSocket.OPEN) c.send({ type: 'ping' });
      }, 1);
      try {
        assert.deepEqual(await c.closed, {
          code: 4400,
          reason: 'Too many frames before the upstream opened',
        });
        assert.equal(host.relay.stats().heldFrames, 0);
      } finally {
        clearInterval(flood);
      }
      assert.equal(upstream.opened(), 0, 'no upstream socket was opened');
      gate.release({ ok: true, session: {} });
    },
  );
});

testBothHosts('4400 past 512 KiB held before the upstream opens', (kind) => {
  const gate = heldGate();
  return withWorld(
    kind,
    { deps: (b) => ({ ...b, admit: gate.admit }) },
    async ({ host, upstream }) => {
      const c = rawClient(host.url);
      await c.opened;
      c.send({ type: 'connection_init' });
      const big = { type: 'ping', payload: { pad: 'x'.repeat(300 * 1024) } };
      c.send(big);
      c.send(big);
      assert.deepEqual(await c.closed, {
        code: 4400,
        reason: 'Too many frames before the upstream opened',
      });
      assert.equal(upstream.opened(), 0, 'no upstream socket was opened');
      gate.release({ ok: true, session: {} });
    },
  );
});

testBothHosts('4400 past 64 frames held behind a pending check', (kind) => {
  let answer!: (v: SubscribeVerdict) => void;
  const pending = new Promise<SubscribeVerdict>((resolve) => answer = resolve);
  return withWorld(
    kind,
    { deps: (b) => ({ ...b, checkSubscribe: () => pending }) },
    async ({ host, upstream }) => {
      const c = await initialisedClient(host.url);
      c.send(ticks('1', 1));
      for (let i = 0; i < 64; i++) c.send({ type: 'ping' });
      await waitFor(() => host.relay.stats().heldFrames === 64);
      c.send({ type: 'ping' });
      assert.deepEqual(await c.closed, {
        code: 4400,
        reason: 'Too many frames behind a pending check',
      });
      const relayed = await upstreamFramesAfter(upstream, 0);
      assert.ok(!relayed.some((f) => JSON.parse(f).type === 'subscribe'), 'a subscribe relayed');
      answer({ ok: false, code: 'ProxyFenceUnavailable', message: 'late' });
    },
  );
});

testBothHosts("the gate's refusals close with the gate's code; a throwing gate 4401", (kind) => {
  const answers: (() => Promise<Admission>)[] = [
    () => Promise.resolve({ ok: false, closeCode: 4403, reason: 'AuthTenantForbidden' }),
    () => Promise.resolve({ ok: false, closeCode: 1013, reason: 'ProxyAuthUnavailable' }),
    () => Promise.reject(new Error(`gate exploded ${TOKEN}`)),
  ];
  return withWorld(
    kind,
    { deps: (b) => ({ ...b, admit: () => answers.shift()!() }) },
    async ({ host, upstream }) => {
      const init = { type: 'connection_init', payload: { authToken: 'a' } };
      assert.deepEqual(await closeAfter(host.url, [init]), {
        code: 4403,
        reason: 'AuthTenantForbidden',
      });
      assert.deepEqual(await closeAfter(host.url, [init]), {
        code: 1013,
        reason: 'ProxyAuthUnavailable',
      });
      assert.deepEqual(await closeAfter(host.url, [init]), { code: 4401, reason: 'Unauthorized' });
      assert.equal(upstream.opened(), 0, 'no upstream socket was opened');
    },
  );
});

testBothHosts('a revoked session closes 4401 and is released once', (kind) => {
  let revoke!: (code: number, reason: string) => void;
  let released = 0;
  const session: AdmittedSession = {
    release: () => released++,
    onRevoke: (r) => revoke = r,
  };
  return withWorld(kind, {
    deps: (b) => ({ ...b, admit: () => Promise.resolve({ ok: true, session }) }),
  }, async ({ host }) => {
    const c = await initialisedClient(host.url);
    revoke(4401, 'Unauthorized');
    assert.deepEqual(await c.closed, { code: 4401, reason: 'Unauthorized' });
    assert.equal(released, 1);
  });
});

testBothHosts('a check that says close closes the socket (1013)', (kind) =>
  withWorld(kind, {
    deps: (b) => ({
      ...b,
      checkSubscribe: () => ({ ok: false, closeCode: 1013, reason: 'ProxyFenceUnavailable' }),
    }),
  }, async ({ host, upstream }) => {
    const c = await initialisedClient(host.url);
    c.send(ticks('1', 1));
    assert.deepEqual(await c.closed, { code: 1013, reason: 'ProxyFenceUnavailable' });
    const relayed = await upstreamFramesAfter(upstream, 0);
    assert.ok(!relayed.some((f) => JSON.parse(f).type === 'subscribe'), 'a subscribe relayed');
  }));

testBothHosts(
  'a check that throws is an error frame ProxyHandlerFailed',
  (kind) =>
    withWorld(kind, {
      deps: (b) => ({
        ...b,
        checkSubscribe: () => {
          throw new Error('chain bug');
        },
      }),
    }, async ({ host }) => {
      const c = await initialisedClient(host.url);
      c.send(ticks('1', 1));
      assert.deepEqual(await c.next(), {
        id: '1',
        type: 'error',
        payload: [{
          message: 'The subscription could not be checked',
          extensions: { code: 'ProxyHandlerFailed' },
        }],
      });
      await closeClient(c);
    }),
);

testBothHosts(
  '1012 at the end of the socket life',
  (kind) =>
    withWorld(
      kind,
      { deps: (b) => ({ ...b, limits: { ...b.limits, socketLifeMs: 100 } }) },
      async ({ host }) => {
        const c = await initialisedClient(host.url);
        c.send(ticks('1', 1_000, 10));
        assert.deepEqual(await c.closed, { code: 1012, reason: 'reconnect to be re-authorised' });
      },
    ),
);

testBothHosts("1012 at the session's exp when sooner than the life", (kind) =>
  withWorld(kind, {
    deps: (b) => ({
      ...b,
      admit: () => Promise.resolve({ ok: true, session: { expiresAt: Date.now() + 80 } }),
    }),
  }, async ({ host }) => {
    const c = await initialisedClient(host.url);
    assert.deepEqual(await c.closed, { code: 1012, reason: 'reconnect to be re-authorised' });
  }));

testBothHosts('an exp already past closes 1012 without opening the upstream', (kind) => {
  // every upstream socket the relay opens goes through its factory: none may
  let opening = 0;
  return withWorld(kind, {
    deps: (b) => ({
      ...b,
      openUpstream: (...args) => (opening++, (b.openUpstream ?? openWsUpstream)(...args)),
      admit: () => Promise.resolve({ ok: true, session: { expiresAt: 1 } }),
    }),
  }, async ({ host, upstream }) => {
    const closed = await closeAfter(host.url, [{ type: 'connection_init' }]);
    assert.deepEqual(closed, { code: 1012, reason: 'reconnect to be re-authorised' });
    assert.equal(opening, 0, 'an upstream socket was opened');
    assert.equal(upstream.opened(), 0, 'no upstream socket was opened');
    assert.equal(host.relay.stats().upstreamSockets, 0);
  });
});

testBothHosts(
  'a close code the transport refuses still closes the socket',
  (kind) =>
    withWorld(kind, {
      deps: (b) => ({
        ...b,
        admit: () => Promise.resolve({ ok: false, closeCode: 1006, reason: 'not sendable' }),
      }),
    }, async ({ host }) => {
      const closed = await closeAfter(host.url, [{ type: 'connection_init' }]);
      // Closed without a code or dropped (Deno's client reports an abnormal close as 0):
      // never left open.
      assert.ok([0, 1005, 1006].includes(closed.code), `closed ${closed.code}`);
      assert.equal(host.relay.stats().sockets, 0);
    }),
);
