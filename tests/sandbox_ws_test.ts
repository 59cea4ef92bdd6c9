/**
 * The sandbox upstream's socket: a real graphql-ws client (Deno's WebSocket) subscribing and
 * querying, init authorization, recording, and every socket switch.
 */
import assert from 'node:assert/strict';
import { type Client, createClient } from 'graphql-ws';
import { WebSocket as WsClient } from 'ws';
import {
  appOperations,
  type Sandbox,
  SANDBOX_TOKEN,
  startSandbox,
  upstreamError,
  WORLD_IDS,
} from '../scripts/sandbox/mod.ts';

const PROTOCOL = 'graphql-transport-ws';
const BOOKINGS = 'subscription B($botID: BotID!) { bookingAdded(botID: $botID) { id status } }';

async function withSandbox(run: (sb: Sandbox) => Promise<void>) {
  const sb = await startSandbox();
  try {
    await run(sb);
  } finally {
    await sb.close();
  }
}

function client(sb: Sandbox, token = SANDBOX_TOKEN): Client {
  return createClient({
    url: sb.wsUrl,
    webSocketImpl: WebSocket,
    connectionParams: { authToken: `Bearer ${token}` },
    retryAttempts: 0,
    lazy: true,
  });
}

/** Collects every `next` payload of one subscription until it completes or errors. */
function collect(c: Client, query: string, variables: Record<string, unknown>) {
  return new Promise<unknown[]>((resolve, reject) => {
    const results: unknown[] = [];
    c.subscribe({ query, variables }, {
      next: (value) => void results.push(value),
      error: reject,
      complete: () => resolve(results),
    });
  });
}

/** A raw socket: send frames, read frames in order, await its close. */
async function raw(sb: Sandbox) {
  const ws = new WebSocket(sb.wsUrl, PROTOCOL);
  const frames: string[] = [];
  const waiters: (() => void)[] = [];
  ws.onmessage = (e) => {
    frames.push(String(e.data));
    waiters.splice(0).forEach((w) => w());
  };
  const closed = new Promise<CloseEvent>((resolve) => (ws.onclose = resolve));
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  return {
    ws,
    closed,
    send: (frame: unknown) => ws.send(JSON.stringify(frame)),
    async frame(): Promise<Record<string, unknown>> {
      while (frames.length === 0) await new Promise<void>((r) => waiters.push(r));
      return JSON.parse(frames.shift() as string);
    },
  };
}

const init = (token = SANDBOX_TOKEN) => ({
  type: 'connection_init',
  payload: { authToken: `Bearer ${token}` },
});

Deno.test('socket: a graphql-ws client subscription streams deterministic events per bot', async () => {
  await withSandbox(async (sb) => {
    const c = client(sb);
    try {
      const [one, again, three, query] = await Promise.all([
        collect(c, BOOKINGS, { botID: WORLD_IDS.bot1 }),
        collect(c, BOOKINGS, { botID: WORLD_IDS.bot1 }),
        collect(c, BOOKINGS, { botID: WORLD_IDS.bot3 }),
        collect(c, 'query Q { currentUser { id } }', {}),
      ]);
      assert.equal(one.length, 3);
      assert.deepEqual(again, one);
      const ids = (events: unknown[]) =>
        events.map((e) => (e as { data: { bookingAdded: { id: string } } }).data.bookingAdded.id);
      for (const id of ids(one)) assert.match(id, /^[0-9a-f]{24}$/);
      assert.equal(new Set(ids(one)).size, 3);
      for (const id of ids(three)) assert.ok(!ids(one).includes(id));
      assert.deepEqual(query, [{ data: { currentUser: { id: WORLD_IDS.user } } }]);
    } finally {
      await c.dispose();
    }
    await sb.waitFor(() => sb.sockets[0]?.closed !== null, 'socket closed');
    const [socket] = sb.sockets;
    assert.equal(sb.sockets.length, 1);
    assert.equal(socket.path, '/graphql');
    assert.equal(socket.protocol, PROTOCOL);
    assert.deepEqual(socket.initPayload, { authToken: `Bearer ${SANDBOX_TOKEN}` });
    assert.equal(socket.authorized, true);
    assert.equal(socket.subscribes.length, 4);
    assert.equal(socket.subscribes[0].payload.query, BOOKINGS);
    assert.deepEqual(socket.subscribes[2].payload.variables, { botID: WORLD_IDS.bot3 });
    assert.equal(JSON.parse(socket.frames[0]).type, 'connection_init');
    assert.equal(JSON.parse(socket.sent[0]).type, 'connection_ack');
    assert.equal(socket.closed?.by, 'client');
    assert.equal(sb.received.length, 0, 'no HTTP request');
  });
});

Deno.test('socket: a wrong or missing authToken closes 4403 Forbidden', async () => {
  await withSandbox(async (sb) => {
    for (const frame of [init('wrong'), { type: 'connection_init' }]) {
      const s = await raw(sb);
      s.send(frame);
      const event = await s.closed;
      assert.equal(event.code, 4403);
      assert.equal(event.reason, 'Forbidden');
    }
    assert.deepEqual(sb.sockets.map((s) => s.authorized), [false, false]);
    assert.deepEqual(sb.sockets[0].initPayload, { authToken: 'Bearer wrong' });
    assert.equal(sb.sockets[1].initPayload, undefined);
    assert.deepEqual(sb.sockets[0].closed, { code: 4403, reason: 'Forbidden', by: 'sandbox' });
  });
});

Deno.test('switch stream: count, and a silent stream the client completes', async () => {
  await withSandbox(async (sb) => {
    sb.switches.stream = { count: 1, tickMs: 1, complete: false };
    const s = await raw(sb);
    s.send(init());
    assert.equal((await s.frame()).type, 'connection_ack');
    s.send({
      id: 's1',
      type: 'subscribe',
      payload: { query: BOOKINGS, variables: { botID: WORLD_IDS.bot2 } },
    });
    const next = await s.frame();
    assert.equal(next.type, 'next');
    assert.equal(next.id, 's1');
    s.send({ id: 's1', type: 'complete' });
    s.ws.close(1000, 'done');
    await s.closed;
    await sb.waitFor(() => sb.sockets[0].closed !== null, 'socket closed');
    assert.equal(JSON.parse(sb.sockets[0].frames.at(-1) as string).type, 'complete');
    assert.equal(sb.sockets[0].sent.filter((f) => JSON.parse(f).type === 'next').length, 1);
  });
});

Deno.test('switch errors on the socket: an error frame on the subscribe id', async () => {
  await withSandbox(async (sb) => {
    sb.switches.errors = {
      errors: upstreamError('NotEnoughPermissions'),
      match: { rootField: 'bookingAdded' },
    };
    const s = await raw(sb);
    s.send(init());
    await s.frame();
    s.send({
      id: 'e1',
      type: 'subscribe',
      payload: { query: BOOKINGS, variables: { botID: WORLD_IDS.bot1 } },
    });
    const frame = await s.frame();
    assert.equal(frame.type, 'error');
    assert.equal(frame.id, 'e1');
    assert.deepEqual(frame.payload, [{
      message: 'NotEnoughPermissions',
      extensions: { code: 'NotEnoughPermissions' },
    }]);
    s.ws.close();
    await s.closed;
  });
});

Deno.test('switch ws.ignorePings: pings are recorded but never answered', async () => {
  await withSandbox(async (sb) => {
    sb.switches.ws.ignorePings = true;
    const s = await raw(sb);
    s.send(init());
    await s.frame();
    s.send({ type: 'ping' });
    s.send({ id: 'q', type: 'subscribe', payload: { query: '{ currentUser { id } }' } });
    assert.equal((await s.frame()).type, 'next', 'no pong came before the answer');
    sb.switches.ws.ignorePings = false;
    s.send({ type: 'ping' });
    assert.equal((await s.frame()).type, 'complete');
    assert.equal((await s.frame()).type, 'pong');
    s.ws.close();
    await s.closed;
    const pings = sb.sockets[0].frames.filter((f) => JSON.parse(f).type === 'ping');
    assert.equal(pings.length, 2);
    assert.equal(sb.sockets[0].sent.filter((f) => f.includes('"pong"')).length, 1);
  });
});

Deno.test('switch ws.ignorePings: WebSocket control pings are not answered either', async () => {
  await withSandbox(async (sb) => {
    sb.switches.ws.ignorePings = true;
    const ws = new WsClient(sb.wsUrl, PROTOCOL);
    await new Promise((resolve) => ws.once('open', resolve));
    const pongs: string[] = [];
    const second = new Promise<void>((resolve) =>
      ws.on('pong', (data) => {
        pongs.push(String(data));
        if (String(data) === 'second') resolve();
      })
    );
    ws.ping('first');
    await sb.waitFor(() => sb.sockets.length === 1, 'socket recorded');
    ws.send(JSON.stringify(init()));
    await new Promise((resolve) => ws.once('message', resolve));
    sb.switches.ws.ignorePings = false;
    ws.ping('second');
    await second;
    assert.deepEqual(pongs, ['second']);
    const closed = new Promise((resolve) => ws.once('close', resolve));
    ws.close();
    await closed;
  });
});

Deno.test('socket: every app subscription streams without errors', async () => {
  await withSandbox(async (sb) => {
    sb.switches.stream = { count: 1, tickMs: 1, complete: true };
    const subscriptions = appOperations().filter((op) => op.kind === 'subscription');
    assert.ok(subscriptions.length > 20);
    const c = client(sb);
    try {
      const results = await Promise.all(
        subscriptions.map((op) => collect(c, op.query, op.variables(WORLD_IDS.bot1))),
      );
      const failures = subscriptions.filter((_, i) =>
        results[i].length !== 1 || (results[i][0] as { errors?: unknown }).errors !== undefined
      );
      assert.deepEqual(failures.map((op) => op.name), []);
    } finally {
      await c.dispose();
    }
  });
});

Deno.test('switch ws.oversizedFrameBytes: a next frame of at least that size', async () => {
  await withSandbox(async (sb) => {
    sb.switches.ws.oversizedFrameBytes = 2 * 1024 * 1024;
    const s = await raw(sb);
    s.send(init());
    await s.frame();
    s.send({ id: 'big', type: 'subscribe', payload: { query: '{ currentUser { id } }' } });
    const frame = await s.frame();
    assert.equal(frame.type, 'next');
    assert.ok(JSON.stringify(frame).length >= 2 * 1024 * 1024);
    assert.match(sb.sockets[0].sent[1], /^<oversized \d+ bytes>$/);
    s.ws.close();
    await s.closed;
  });
});

Deno.test('switch ws.refuseInit and ws.closeNext; closeSockets closes every open socket', async () => {
  await withSandbox(async (sb) => {
    sb.switches.ws.refuseInit = true;
    const refused = await raw(sb);
    refused.send(init());
    assert.equal((await refused.closed).code, 4403);
    sb.switches.ws.refuseInit = false;

    sb.switches.ws.closeNext = { code: 4500, reason: 'upstream broke', on: 'subscribe' };
    const once = await raw(sb);
    once.send(init());
    await once.frame();
    once.send({
      id: 'x',
      type: 'subscribe',
      payload: { query: BOOKINGS, variables: { botID: WORLD_IDS.bot1 } },
    });
    const event = await once.closed;
    assert.deepEqual([event.code, event.reason], [4500, 'upstream broke']);
    assert.equal(sb.switches.ws.closeNext, null, 'one-shot');

    const a = await raw(sb);
    const b = await raw(sb);
    a.send(init());
    await a.frame();
    assert.equal(sb.closeSockets(4000, 'maintenance'), 2);
    for (const s of [a, b]) {
      const e = await s.closed;
      assert.deepEqual([e.code, e.reason], [4000, 'maintenance']);
    }
    await sb.waitFor(() => sb.sockets.every((s) => s.closed !== null), 'all closed');
    assert.deepEqual(sb.sockets.map((s) => s.closed?.code), [4403, 4500, 4000, 4000]);
  });
});

Deno.test('socket: delays hold a subscribe; an upgrade elsewhere is refused', async () => {
  await withSandbox(async (sb) => {
    sb.switches.delays = [{ ms: 200, match: { operationName: 'Slow' } }];
    const s = await raw(sb);
    s.send(init());
    await s.frame();
    s.send({
      id: 'slow',
      type: 'subscribe',
      payload: { query: 'query Slow { currentUser { id } }' },
    });
    s.send({
      id: 'fast',
      type: 'subscribe',
      payload: { query: 'query Fast { currentUser { id } }' },
    });
    assert.equal((await s.frame()).id, 'fast');
    s.ws.close();
    await s.closed;
    const elsewhere = new WebSocket(sb.wsUrl.replace('/graphql', '/other'), PROTOCOL);
    const failed = await new Promise<string>((resolve) => {
      elsewhere.onerror = () => resolve('error');
      elsewhere.onopen = () => resolve('open');
    });
    if (elsewhere.readyState !== WebSocket.CLOSED) {
      await new Promise((resolve) => (elsewhere.onclose = resolve));
    }
    assert.equal(failed, 'error');
  });
});
