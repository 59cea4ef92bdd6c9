/**
 * Relay flow control (docs/operations.md "Slow and vanished peers on the relay"), on both hosts,
 * each run as its own process so its resident memory (/proc/<pid>/status VmRSS) is the gateway's
 * alone: a flood upstream that streams as fast as its socket drains (flood_upstream.ts) and `ws`
 * subscribers that stop reading their TCP socket (subscriber.ts).
 *
 * One scenario per host (the stall timeout is set to 25 s so the 20 s stall fits before it):
 * - four subscribers stall for 20 s while a healthy one streams (paced, about 1000 frames/s):
 *   the gateway's RSS grows by at most STALL_GROWTH_BOUND, the upstream's stalled streams stop
 *   (backpressure reached it: their sends stop, their unsent bytes sit at its send-ahead), the
 *   healthy one receives every second and keeps level with its upstream, a GraphQL POST answers;
 * - one of the four then reads again and receives every frame in order, none lost;
 * - the three are closed 1013 at the stall timeout: the stall counter says so, the socket gauge
 *   and the tenant's socket count are released (a socket refused 4429 before is admitted
 *   after), their upstream streams end, and RSS is back within RETURN_BOUND of the start.
 */
import assert from 'node:assert/strict';
import {
  type HostKind,
  type HostProcess,
  startHostProcess,
} from '../../../scripts/host_process.ts';
import { residentBytes } from '../../../scripts/bench/proc.ts';
import { postGraphql } from '../../helpers/assertions.ts';
import {
  type FloodUpstream,
  PACED_QUERY,
  SEND_AHEAD_BYTES,
  startFloodUpstream,
} from '../../../scripts/bench/flood_upstream.ts';
import { admittedSubscriber, subscribe, type Subscriber } from '../subscriber.ts';

const MIB = 1024 * 1024;
/**
 * Growth allowed with four stalled sockets: the goal's 64 MiB (docs/operations.md "Memory").
 * Measured (2026-11-27, flood upstream, 1 KiB frames, 512 KiB high-water mark, the Deno host then
 * on Deno.serve): Deno 46 MiB, Node 22 MiB, flat over the 20 s. Each stalled socket takes about 4-5 MB of frames before its upstream
 * leg is paused, almost all parked in the kernel's socket buffers; the growth is mostly a one-time
 * heap growth from relaying that burst (on Deno, 25 MiB with one stalled socket, 49 with four, 68
 * with eight at a 1 MiB mark), so each further stalled socket costs about 2 MiB on Deno and 1 MiB
 * on Node.
 */
const STALL_GROWTH_BOUND = 64 * MIB;
/**
 * Distance from the starting RSS allowed once the stalled sockets are closed (after the resumed
 * one caught up 5000 frames). Measured: Deno 57 MiB (the heap keeps the burst's growth; Deno's
 * closed sockets that were never read hold what flow control let into them until the peer goes),
 * Node 27-29 MiB. A relay without flow control was at 1,066 MiB (Deno) and 371 MiB (Node).
 */
const RETURN_BOUND = 80 * MIB;
const STALL_TIMEOUT_MS = 25_000;
/** Subscribers that never resume (one more stalls and resumes: four stalled at once). */
const STALLED = 3;
/** Every socket of the scenario: the stalled ones, the resumed one and the healthy one. */
const TENANT_SOCKETS = STALLED + 2;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function startGateway(kind: HostKind, upstream: FloodUpstream): Promise<HostProcess> {
  return await startHostProcess(kind, {
    env: {
      SVC_TOKEN: 'flow-test-master-token',
      SVC_API_BASE: upstream.url,
      HOST: '127.0.0.1',
      PORT: '0',
      METRICS: '1',
      TENANT_MAX_SOCKETS: String(TENANT_SOCKETS),
      WS_STALL_TIMEOUT_MS: String(STALL_TIMEOUT_MS),
    },
  });
}

/** One metric's value from the gateway's /svc/metrics (0 when absent). */
async function metric(gateway: HostProcess, line: string): Promise<number> {
  const text = await (await fetch(`${gateway.url}/svc/metrics`)).text();
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found ? Number(found.slice(line.length + 1)) : 0;
}

const wsUrl = (gateway: HostProcess) => `${gateway.url.replace(/^http/, 'ws')}/svc/graphql`;

/** Waits until `check` is true, polling every 100 ms (throws after `ms`). */
async function until(check: () => boolean | Promise<boolean>, ms: number, what: string) {
  const end = Date.now() + ms;
  while (!await check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** Samples RSS and the healthy subscriber's count every second for `seconds`. */
async function watch(pid: number, healthy: Subscriber, seconds: number) {
  const rss: number[] = [];
  const healthyGains: number[] = [];
  for (let i = 0; i < seconds; i++) {
    const before = healthy.state.received;
    await sleep(1000);
    rss.push(await residentBytes(pid));
    healthyGains.push(healthy.state.received - before);
  }
  return { rss, healthyGains };
}

async function scenario(kind: HostKind): Promise<void> {
  const upstream = await startFloodUpstream();
  const gateway = await startGateway(kind, upstream);
  const opened: Subscriber[] = [];
  try {
    // the healthy subscriber's stream is paced (about 1000 frames/s): a flood of its own would
    // grow the heap by the garbage collector's lazy schedule, not by anything held
    const healthy = await admittedSubscriber(wsUrl(gateway), PACED_QUERY, 'healthy');
    opened.push(healthy);
    await until(() => healthy.state.received > 500, 10_000, 'the healthy stream');
    await sleep(1000);
    const start = await residentBytes(gateway.pid);

    const stalled: Subscriber[] = [];
    for (let i = 0; i <= STALLED; i++) {
      const s = await admittedSubscriber(wsUrl(gateway), undefined, i === 0 ? 'resumed' : 's');
      s.pause();
      stalled.push(s);
      opened.push(s);
    }
    const [resumer, ...never] = stalled;
    const over = await subscribe(wsUrl(gateway));
    assert.equal(over.admitted, false, 'one more socket is over the tenant ceiling');
    assert.equal(over.admitted === false && over.code, 4429);

    const { rss, healthyGains } = await watch(gateway.pid, healthy, 20);
    const growth = Math.max(...rss) - start;
    console.log(
      `[${kind}] RSS ${(start / MIB).toFixed(1)} MiB at start; growth over 20 s with ` +
        `${STALLED + 1} stalled sockets: max ${(growth / MIB).toFixed(1)} MiB ` +
        `(${rss.map((b) => ((b - start) / MIB).toFixed(0)).join(' ')})`,
    );

    // backpressure reached the upstream, read now, after the stall: over 2 s, each never-resumed
    // stream's socket holds the upstream's whole send-ahead unsent at every reading (a gateway
    // that ended the upstream stream instead of pushing back leaves nothing unsent), and sends
    // nothing more (a gateway that reads on while the browser is stalled lets it send)
    const resumedStream = upstream.streams.find((s) => s.id === 'resumed')!;
    const streams = upstream.streams.filter((s) => s.id === 's');
    assert.equal(streams.length, STALLED);
    const sentNow = streams.map((s) => s.sent);
    const leastUnsent = streams.map((s) => s.unsent());
    for (let i = 0; i < 20; i++) {
      await sleep(100);
      streams.forEach((s, j) => leastUnsent[j] = Math.min(leastUnsent[j], s.unsent()));
    }
    for (const unsent of leastUnsent) {
      assert.ok(unsent >= SEND_AHEAD_BYTES, `its own buffer is full: at least ${unsent} unsent`);
    }
    assert.deepEqual(streams.map((s) => s.sent), sentNow, 'stalled streams send nothing more');
    assert.ok(growth < STALL_GROWTH_BOUND, `RSS grew ${(growth / MIB).toFixed(1)} MiB`);
    assert.ok(await metric(gateway, 'svc_relay_paused') >= STALLED, 'the stalled legs are paused');

    // no head-of-line blocking: the healthy stream moved every second and is level with what
    // its upstream sent (frames in flight aside); POSTs answer
    for (const gain of healthyGains) assert.ok(gain > 0);
    assert.ok(upstream.streams[0].sent - healthy.state.received < 200, 'the healthy one keeps up');
    const post = await postGraphql(gateway.url, { query: 'query Q { currentUser { id } }' });
    assert.equal(post.status, 200);
    await post.body?.cancel();

    // the resumed subscriber gets every frame, in order: its stream halts, and once drained the
    // subscriber holds every frame the upstream sent on it
    const pausedAt = resumer.state.received;
    resumer.resume();
    await until(() => resumer.state.received > pausedAt + 5_000, 10_000, 'the resumed stream');
    resumedStream.halted = true;
    await until(() => resumer.state.received >= resumedStream.sent, 10_000, 'the drain')
      .catch(() => {});
    resumer.close();
    assert.equal(resumer.state.received, resumedStream.sent, 'none lost');
    assert.equal(resumer.state.outOfOrder, 0);
    assert.equal(healthy.state.outOfOrder, 0);

    // the never-resumed are closed at the stall timeout: counters released, upstream streams ended
    const stallLine = 'svc_relay_stall_closes_total{leg="browser",cause="timeout"}';
    await until(async () => await metric(gateway, stallLine) === STALLED, 15_000, 'stall closes');
    await until(async () => await metric(gateway, 'svc_relay_sockets') === 1, 5_000, 'sockets');
    await until(() => streams.every((s) => s.ended), 5_000, 'the upstream streams to end');
    const again = await admittedSubscriber(wsUrl(gateway), PACED_QUERY);
    opened.push(again);
    await sleep(2000);
    const after = await residentBytes(gateway.pid);
    console.log(`[${kind}] RSS after the stall closes: ${(after / MIB).toFixed(1)} MiB`);
    assert.ok(after - start < RETURN_BOUND, `RSS ${((after - start) / MIB).toFixed(1)} MiB up`);

    // a stalled subscriber that reads again finds its frames in order, then the 1013 close
    for (const s of never) s.resume();
    const closes = await Promise.all(never.map((s) => s.closed));
    for (const close of closes) assert.equal(close.code, 1013);
    assert.match(closes[0].reason, /too slow/);
    for (const s of never) assert.equal(s.state.outOfOrder, 0);
  } finally {
    for (const s of opened) s.close();
    await gateway.stop();
    await upstream.close();
  }
}

for (const kind of ['deno', 'node'] as const) {
  Deno.test({
    name: `[${kind}] stalled subscribers: bounded memory, backpressure, 1013 at the stall timeout`,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: () => scenario(kind),
  });
}
