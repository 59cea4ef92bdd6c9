/**
 * The relay scenario's load pieces (scripts/bench/socket_load.ts, stream_load.ts,
 * idle_sockets.ts), nginx and the floors (scripts/bench/floors/) driven for real against the
 * in-process sandbox with the graphql-ws client; the Deno floor's two upstream legs against the
 * flood upstream with a subscriber that stops reading. Figures are never asserted against a speed:
 * only counts, shapes and consistency.
 */
import assert from 'node:assert/strict';
import { idleSocketMemory, openIdleSockets } from '../scripts/bench/idle_sockets.ts';
import { runSocketLoad } from '../scripts/bench/socket_load.ts';
import { runStreamLoad } from '../scripts/bench/stream_load.ts';
import { nginxMissing, startNginx } from '../scripts/bench/nginx.ts';
import {
  floorOnDeno,
  type RelayFloorMode,
  startHostLegsRelay,
  startNullProxy,
  startNullRelay,
} from '../scripts/bench/floors/mod.ts';
import type { ChildProcess } from '../scripts/host_process.ts';
import { type Sandbox, SANDBOX_TOKEN, startSandbox, WORLD_IDS } from '../scripts/sandbox/mod.ts';
import { SEND_AHEAD_BYTES, startFloodUpstream } from '../scripts/bench/flood_upstream.ts';
import { admittedSubscriber, type Subscriber } from './relay/subscriber.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const wsUrl = (url: string) => url.replace(/^http/, 'ws');

/** Waits until `check` holds, polling every 50 ms; throws after 10 s. */
async function until(check: () => boolean, what: string) {
  for (const end = Date.now() + 10_000; !check();) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await sleep(50);
  }
}

async function withSandbox(run: (sb: Sandbox) => Promise<void>) {
  const sb = await startSandbox();
  try {
    await run(sb);
  } finally {
    await sb.close();
  }
}

const target = (sb: Sandbox, label: string) => ({
  label,
  url: sb.wsUrl,
  initPayload: { authToken: `Bearer ${SANDBOX_TOKEN}` },
  pid: Deno.pid,
});

Deno.test('runSocketLoad: operations over S sockets x N in flight, latencies of each', async () => {
  await withSandbox(async (sb) => {
    const m = await runSocketLoad(
      {
        ...target(sb, 'direct 2x3'),
        payload: { query: '{ currentUser { id } }' },
        sockets: 2,
        inFlight: 3,
      },
      0.3,
      0.05,
    );
    assert.equal(m.target, 'direct 2x3');
    assert.equal(m.connections, 6);
    assert.equal(m.errors, 0);
    assert.ok(m.requests > 0);
    assert.ok(m.p50Ms > 0 && m.p50Ms <= m.p99Ms);
    assert.ok(Math.abs(m.rps - m.requests / m.durationS) < 1e-6);
    const sockets = sb.sockets.filter((s) => s.authorized);
    assert.equal(sockets.length, 2, 'one socket per client');
    const subscribes = sockets.reduce((n, s) => n + s.subscribes.length, 0);
    assert.ok(subscribes >= m.requests + 2, 'every measured operation reached the upstream');
    await sb.waitFor(() => sb.sockets.every((s) => s.closed !== null), 'sockets closed');
  });
});

Deno.test('runSocketLoad: a refused socket fails the run before anything is measured', async () => {
  await withSandbox(async (sb) => {
    await assert.rejects(() =>
      runSocketLoad(
        {
          ...target(sb, 'x'),
          initPayload: {},
          payload: { query: '{ __typename }' },
          sockets: 1,
          inFlight: 1,
        },
        0.1,
        0,
      )
    );
  });
});

Deno.test('runStreamLoad: events of S sockets x N streams counted, streams outlast the run', async () => {
  await withSandbox(async (sb) => {
    sb.switches.stream = { count: 1_000_000, tickMs: 0, complete: true };
    const m = await runStreamLoad(
      {
        ...target(sb, 'direct stream 2x2'),
        payload: {
          query: 'subscription S($botID: BotID!) { bookingAdded(botID: $botID) { id } }',
          variables: { botID: WORLD_IDS.bot1 },
        },
        sockets: 2,
        streams: 2,
      },
      0.3,
      0.05,
    );
    assert.equal(m.connections, 4);
    assert.equal(m.errors, 0);
    assert.ok(m.requests > 0);
    assert.ok(Number.isNaN(m.p50Ms), 'no latency for streamed events');
    const subscribes = sb.sockets.reduce((n, s) => n + s.subscribes.length, 0);
    assert.equal(subscribes, 4);
    await sb.waitFor(() => sb.sockets.every((s) => s.closed !== null), 'sockets closed');
  });
});

Deno.test('runStreamLoad: a stream that ends during the run counts as an error', async () => {
  await withSandbox(async (sb) => {
    sb.switches.stream = { count: 2, tickMs: 20, complete: true };
    const m = await runStreamLoad(
      {
        ...target(sb, 'short'),
        payload: {
          query: 'subscription S($botID: BotID!) { bookingAdded(botID: $botID) { id } }',
          variables: { botID: WORLD_IDS.bot1 },
        },
        sockets: 1,
        streams: 1,
      },
      0.1,
      0,
    );
    assert.equal(m.errors, 1);
  });
});

Deno.test('idleSocketMemory: acknowledged idle sockets held between two readings', async () => {
  await withSandbox(async (sb) => {
    const m = await idleSocketMemory({
      url: sb.wsUrl,
      initPayload: { authToken: `Bearer ${SANDBOX_TOKEN}` },
      pid: Deno.pid,
      warm: 3,
      count: 20,
      settleMs: 0,
    });
    assert.equal(m.count, 20);
    assert.ok(m.beforeBytes > 0 && m.afterBytes > 0);
    assert.equal(m.perSocketBytes, (m.afterBytes - m.beforeBytes) / 20);
    const acked = sb.sockets.filter((s) => s.authorized === true);
    assert.equal(acked.length, 23);
    assert.ok(acked.every((s) => s.subscribes.length === 0), 'idle: no subscription');
    await sb.waitFor(() => sb.sockets.every((s) => s.closed !== null), 'sockets closed');
  });
});

Deno.test('openIdleSockets: a socket closed before its ack throws, after closing the rest', async () => {
  await withSandbox(async (sb) => {
    await assert.rejects(() => openIdleSockets(sb.wsUrl, { authToken: 'Bearer wrong' }, 3), /4403/);
    await sb.waitFor(() => sb.sockets.every((s) => s.closed !== null), 'sockets closed');
  });
});

/** Round trips through `server` (an http URL) for 0.3 s; no error, at least one operation. */
async function roundTripsThrough(sb: Sandbox, server: string, path: string, sockets: number) {
  // a floor that drops frames leaves the load waiting for answers: fail it, do not hang
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no round trips through the floor in 20 s')), 20_000);
  });
  const load = runSocketLoad(
    {
      ...target(sb, `through ${sockets}x2`),
      url: `${server.replace(/^http/, 'ws')}${path}`,
      payload: { query: '{ currentUser { id } }' },
      sockets,
      inFlight: 2,
    },
    0.3,
    0.05,
  );
  const m = await Promise.race([load, deadline]).finally(() => clearTimeout(timer));
  assert.equal(m.errors, 0);
  assert.ok(m.requests > 0);
  const reached = sb.sockets.filter((s) => s.authorized);
  assert.equal(reached.length, sockets, 'one upstream socket per relayed socket');
  assert.ok(reached.reduce((n, s) => n + s.subscribes.length, 0) >= m.requests);
}

/** A POST of `{ currentUser { id } }` to `server` without authorization; answered as the token holder. */
async function postWithoutToken(server: string) {
  const post = await fetch(`${server}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ currentUser { id } }' }),
  });
  assert.equal(post.status, 200);
  assert.ok((await post.json()).data.currentUser.id, 'answered as the token holder');
}

const noNginx = nginxMissing();
if (noNginx) console.log(`SKIPPED: nginx passes the socket through: ${noNginx}`);

Deno.test({
  name: 'nginx passes the socket through: graphql-ws operations reach the upstream',
  ignore: noNginx !== null, // counted as ignored, never as passed
  fn: () =>
    withSandbox(async (sb) => {
      // a binary that does not start throws here: a failure, not a skip
      const nginx = await startNginx(sb.url, SANDBOX_TOKEN);
      if ('skipped' in nginx) return assert.fail(nginx.skipped);
      try {
        await roundTripsThrough(sb, nginx.url, '/graphql', 1);
        // plain POSTs still go through the same configuration: the token injected
        await postWithoutToken(nginx.url);
      } finally {
        await nginx.stop();
      }
    }),
});

/** Two round trips through the relay floor `start` gives in each mode, `pass` and `plain`. */
async function passesFrames(
  sb: Sandbox,
  start: (mode: RelayFloorMode) => Promise<ChildProcess>,
): Promise<void> {
  for (const mode of ['pass', 'plain'] as const) {
    const relay = await start(mode);
    try {
      sb.reset();
      await roundTripsThrough(sb, relay.url, '/any-path', 2);
    } finally {
      await relay.stop();
    }
  }
}

for (const kind of ['deno', 'node'] as const) {
  Deno.test(`floors (${kind}): the null proxy injects the token; the host-legs relays pass frames`, async () => {
    await withSandbox(async (sb) => {
      const proxy = await startNullProxy(kind, sb.url, SANDBOX_TOKEN);
      try {
        await postWithoutToken(proxy.url);
      } finally {
        await proxy.stop();
      }
      // the relay scenario's floors, both modes
      await passesFrames(sb, (mode) => startHostLegsRelay(kind, sb.wsUrl, mode));
    });
  });
}

Deno.test('floors (deno, WebSocketStream leg): the null relay passes frames, pass and plain', async () => {
  await withSandbox(async (sb) => {
    await passesFrames(sb, (mode) => startNullRelay('deno', sb.wsUrl, mode, 'stream'));
  });
});

Deno.test('floors on Deno with the Node legs (ws, and one write per turn): frames pass, pass and plain', async () => {
  await withSandbox(async (sb) => {
    for (const file of ['null_relay_node.mjs', 'null_relay_turn.ts']) {
      await passesFrames(sb, (mode) => floorOnDeno(file, sb.wsUrl, mode));
    }
  });
});

for (const leg of ['ws', 'stream'] as const) {
  Deno.test(`floors (deno, ${leg} leg): a stalled subscriber pushes back to the upstream`, async () => {
    const upstream = await startFloodUpstream();
    const relay = await startNullRelay('deno', `${wsUrl(upstream.url)}/graphql`, 'pass', leg);
    let subscriber: Subscriber | null = null;
    try {
      subscriber = await admittedSubscriber(`${wsUrl(relay.url)}/graphql`);
      const s = subscriber;
      await until(() => s.state.received > 100, 'the stream started');
      s.pause();
      const stream = upstream.streams[0];
      // the floor stopped reading its upstream leg: the kernel's buffers fill, then the upstream's
      // own, and it sends nothing more (a floor that reads on never gets here: the upstream's
      // sends go on)
      let last = -1;
      let since = Date.now();
      await until(() => {
        if (stream.sent !== last) (last = stream.sent), (since = Date.now());
        return Date.now() - since >= 1000;
      }, 'the upstream stopped sending');
      const sent = stream.sent;
      assert.ok(stream.unsent() >= SEND_AHEAD_BYTES, "the upstream's own buffer is full");
      await sleep(300);
      assert.equal(stream.sent, sent, 'the upstream sends nothing more while the browser stalls');
      assert.ok(stream.unsent() >= SEND_AHEAD_BYTES);
      s.resume();
      await until(() => s.state.received >= sent, 'every frame sent arrived once resumed');
      assert.equal(s.state.outOfOrder, 0, 'none lost, duplicated or reordered');
    } finally {
      subscriber?.close();
      await relay.stop();
      await upstream.close();
    }
  });
}
