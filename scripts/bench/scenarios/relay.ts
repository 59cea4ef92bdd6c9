/**
 * Scenario 'relay': the WebSocket relay (WS /svc/graphql → {upstream}/graphql, both hosts)
 * against the upstream's socket directly, in one run, with the real graphql-ws client:
 *
 * Targets: the flood upstream's socket directly (../flood_upstream.ts: round trips answered
 * with a fixed next + complete, streams sent as fast as the socket drains), nginx passing the
 * upgrade through (the anchor of a proxy that never parses a frame; skipped when nginx is not
 * installed), a do-nothing relay on each runtime (the floors: ../floors/), both hosts, and the
 * Deno host with its upstream leg on Deno's own WebSocket client (`deno web leg`, a leg without
 * flow control, which cannot pause: the comparison behind the choice of `ws`).
 *
 * 1. round trips: a query sent as a subscribe over open sockets (next + complete back: three
 *    relayed frames an operation), 1 socket × 1 in flight, 1 × 16 and 16 sockets × 1:
 *    operations/s, p50/p99 latency, the server process's CPU per operation;
 * 2. streaming: subscriptions streaming as fast as the upstream's socket drains, 1 socket ×
 *    1 stream and 16 sockets × 8 streams: events/s received and CPU per event (the notes give
 *    it per 100k frames);
 * 3. memory per idle socket (measured first, on fresh processes): the process's resident memory
 *    before and after opening 1000 acknowledged idle sockets (after 100 already open), over 1000;
 * 4. stalled subscribers (last: it leaves the processes' heaps grown): four sockets subscribe
 *    and stop reading their TCP socket; the target's resident memory every second (nginx, the
 *    gateways; the floors have no flow control and would grow without bound).
 *
 * Speed is reported as relay/direct ratios and added latency, never asserted. The scenario runs
 * its own flood upstream process and points every target at it, with the gateways' socket
 * ceilings lifted (RELAY_ENV).
 */
import { type ChildProcess, denoRun, startChildProcess } from '../../host_process.ts';
import { WORLD_IDS } from '../../sandbox/mod.ts';
import { FLOOD_QUERY } from '../flood_upstream.ts';
import { idleSocketMemory } from '../idle_sockets.ts';
import { stalledNotes } from '../stalled_sockets.ts';
import {
  type BenchContext,
  compare,
  type Comparison,
  type Measurement,
  type Scenario,
  type ScenarioReport,
} from '../scenario.ts';
import { runSocketLoad, type SocketTarget } from '../socket_load.ts';
import { runStreamLoad } from '../stream_load.ts';
import { startNginx } from '../nginx.ts';
import { startNullRelay } from '../floors/mod.ts';

/** Round-trip shapes: sockets open, operations in flight on each. */
export const ROUND_TRIP_SHAPES = [
  { sockets: 1, inFlight: 1 },
  { sockets: 1, inFlight: 16 },
  { sockets: 16, inFlight: 1 },
] as const;

/** Streaming shapes: sockets open, subscriptions streaming on each. */
export const STREAM_SHAPES = [
  { sockets: 1, streams: 1 },
  { sockets: 16, streams: 8 },
] as const;

/**
 * Idle sockets opened between the two memory readings (`count`), and those open before the first
 * (`warm`). RSS grows in heap-sized steps, so 200 sockets gave figures two to four times apart
 * from one run to the next; 1000 after 100 stay within about 10% (about 2 s a target).
 */
export const IDLE_SOCKETS = { warm: 100, count: 1000, settleMs: 500 } as const;

/**
 * Gateway environment: lifts the socket ceilings (WS_MAX_SOCKETS 256, WS_PRE_AUTH_SOCKETS 32,
 * TENANT_MAX_SOCKETS 8 by default) so 16 load sockets and 1100 idle ones are all admitted.
 */
export const RELAY_ENV: Readonly<Record<string, string>> = {
  WS_MAX_SOCKETS: '100000',
  WS_PRE_AUTH_SOCKETS: '100000',
  TENANT_MAX_SOCKETS: '100000',
};

/** The Deno host with its former upstream leg (Deno's WebSocket client). */
const WEB_LEG = 'deno web leg';
/** Targets whose upstream leg cannot pause: no streams against the flood upstream. */
const UNPAUSABLE = [WEB_LEG, 'null relay deno'];

const QUERY = { query: 'query RelayBench { currentUser { id } }' };
const SUBSCRIPTION = { query: FLOOD_QUERY, variables: { botID: WORLD_IDS.bot1 } };

/** The scenario's own flood upstream process. */
function startFloodProcess(): Promise<ChildProcess> {
  return startChildProcess({
    command: denoRun('scripts/bench/flood_upstream.ts'),
    env: { PORT: '0', HOST: '127.0.0.1' },
    ready: /^(http:\/\/\S+)$/,
  });
}

const wsUrl = (url: string) => url.replace(/^http/, 'ws');

/** Runs `measure` on every target for one shape; relay/direct comparisons (direct is first). */
async function row(
  targets: SocketTarget[],
  what: string,
  measure: (target: SocketTarget) => Promise<Measurement>,
): Promise<{ measurements: Measurement[]; comparisons: Comparison[] }> {
  const measurements: Measurement[] = [];
  for (const target of targets) measurements.push(await measure(target));
  const comparisons = measurements.slice(1).map((subject, i) =>
    compare(`${targets[i + 1].label} / direct, ${what}`, measurements[0], subject)
  );
  return { measurements, comparisons };
}

/** The memory lines of the notes, one a target, with each gateway's ratio to direct. */
async function memoryNotes(targets: SocketTarget[]): Promise<string[]> {
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
  const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  const lines: string[] = [];
  let direct = NaN;
  for (const t of targets) {
    const m = await idleSocketMemory({
      ...IDLE_SOCKETS,
      url: t.url,
      initPayload: t.initPayload,
      pid: t.pid,
    });
    if (t.label === 'direct') direct = m.perSocketBytes;
    const ratio = t.label === 'direct' ? '' : `, ${(m.perSocketBytes / direct).toFixed(1)}x direct`;
    lines.push(
      `memory per idle socket, ${t.label}: ${kib(m.perSocketBytes)} (RSS ${mib(m.beforeBytes)} ` +
        `-> ${mib(m.afterBytes)} over ${m.count} sockets${ratio})`,
    );
  }
  return lines;
}

/**
 * The targets, in order: direct, nginx (unless skipped), the two floors, both hosts. What was
 * started besides the gateways is stopped through `stops`.
 */
async function relayTargets(
  context: BenchContext,
  upstreamProcess: ChildProcess,
  stops: Array<() => Promise<void>>,
): Promise<SocketTarget[]> {
  const env = { ...RELAY_ENV, SVC_API_BASE: upstreamProcess.url };
  const deno = await context.startGateway({ kind: 'deno', env });
  const node = await context.startGateway({ kind: 'node', env });
  const authorized = { authToken: `Bearer ${context.token}` };
  const upstream = `${wsUrl(upstreamProcess.url)}/graphql`;
  const targets: SocketTarget[] = [
    { label: 'direct', url: upstream, initPayload: authorized, pid: upstreamProcess.pid },
  ];
  const nginx = await startNginx(upstreamProcess.url, context.token);
  if ('skipped' in nginx) {
    console.log(`relay: nginx skipped: ${nginx.skipped}`);
  } else {
    stops.push(nginx.stop);
    await context.placeServer(nginx.pid);
    // nginx relays frames as bytes and cannot put the token into connection_init: the client
    // sends it, as to the upstream directly (nginx is the anchor of a frame-blind proxy)
    const url = `${wsUrl(nginx.url)}/graphql`;
    targets.push({ label: 'nginx', url, initPayload: authorized, pid: nginx.pid });
  }
  for (const kind of ['deno', 'node'] as const) {
    const floor = await startNullRelay(kind, upstream);
    stops.push(() => floor.stop());
    await context.placeServer(floor.pid);
    const url = `${wsUrl(floor.url)}/graphql`;
    targets.push({ label: `null relay ${kind}`, url, initPayload: authorized, pid: floor.pid });
  }
  const web = await context.startGateway({
    kind: 'deno',
    env: { ...env, SVC_BENCH_UPSTREAM_LEG: 'web' },
    denoScript: 'scripts/bench/gateway_runner.ts',
  });
  const path = (url: string) => `${wsUrl(url)}/svc/graphql`;
  targets.push(
    { label: 'deno', url: path(deno.url), initPayload: {}, pid: deno.pid },
    { label: WEB_LEG, url: path(web.url), initPayload: {}, pid: web.pid },
    { label: 'node', url: path(node.url), initPayload: {}, pid: node.pid },
  );
  return targets;
}

/** Every round-trip shape, then every streaming shape, each over all targets. */
async function measureShapes(context: BenchContext, targets: SocketTarget[]) {
  const { durationS, warmupS } = context.settings;
  const measurements: Measurement[] = [];
  const comparisons: Comparison[] = [];
  for (const { sockets, inFlight } of ROUND_TRIP_SHAPES) {
    const shape = `${sockets}x${inFlight}`;
    const done = await row(targets, `round trips ${shape}`, (t) =>
      runSocketLoad(
        { ...t, label: `${t.label} ${shape}`, payload: QUERY, sockets, inFlight },
        durationS,
        warmupS,
      ));
    measurements.push(...done.measurements);
    comparisons.push(...done.comparisons);
  }
  // Not the targets whose upstream leg is Deno's WebSocket client (the web leg, the Deno
  // floor): it cannot pause, so against the flood their heap grows by what the upstream sends
  // (docs/benchmarks.md "WebSocket relay") and their backlog would load the machine for the targets
  // after them.
  const streamTargets = targets.filter((t) => !UNPAUSABLE.includes(t.label));
  for (const { sockets, streams } of STREAM_SHAPES) {
    const shape = `${sockets}x${streams}`;
    const done = await row(streamTargets, `stream ${shape}`, (t) =>
      runStreamLoad(
        { ...t, label: `${t.label} stream ${shape}`, payload: SUBSCRIPTION, sockets, streams },
        durationS,
        warmupS,
      ));
    measurements.push(...done.measurements);
    comparisons.push(...done.comparisons);
  }
  return { measurements, comparisons };
}

/** How the scenario was set up, one sentence a line; then the memory lines. */
function relayNotes(nginxMeasured: boolean, memory: string[]): string[] {
  return [
    "round trips ('<target> SxN': S sockets, N operations in flight on each): subscribe " +
    '{ currentUser { id } } and its next + complete (3 relayed frames); requests = operations',
    "streams ('<target> stream SxN': S sockets, N subscriptions on each): the flood upstream's " +
    'stream; requests = events received, no latency (events carry no send time)',
    'streams are sent as fast as the upstream socket drains (flood upstream, 1 KiB frames): ' +
    'direct measures what this client reads; 16x8 saturates the machine (upstream, gateway ' +
    'and this client share the cpus), so a ' +
    "ratio near 1 says the relay keeps up with the upstream, and a gateway's cpu ms/req is the " +
    'CPU the relay spends per event',
    'memory: resident memory (VmRSS) of fresh processes, before any load; a gateway holds two ' +
    'sockets per browser socket (the browser one and its upstream leg)',
    'cpu: the measured server process (the upstream for direct, the nginx worker, the gateway)',
    'nginx: the frame-blind anchor (bench/nginx.ts: the upgrade passed through, frames ' +
    'relayed as bytes; the client sends the token in connection_init as it does directly)' +
    (nginxMeasured ? '' : ': skipped, no nginx found'),
    'null relay deno / node: the floors, do-nothing relays (bench/floors/: Deno WebSockets; ' +
    'ws on Node; frames passed across unparsed; the client sends the token in connection_init)',
    "deno web leg: the Deno host with its upstream leg on Deno's WebSocket client (without " +
    'flow control; no pause, so no backpressure reaches the upstream); deno: on `ws` (pausable); ' +
    "round trips and memory only, like null relay deno (their upstream leg is Deno's client, " +
    'which cannot pause: against the flood their heap grows by what the upstream sends)',
    ...memory,
  ];
}

/** CPU seconds per 100k relayed frames of every streaming measurement. */
function streamCpuNotes(measurements: Measurement[]): string[] {
  return measurements.filter((m) => m.target.includes(' stream ')).map((m) =>
    `cpu per 100k frames, ${m.target}: ${(m.cpuMsPerRequest * 100).toFixed(2)} s ` +
    `(${Math.round(m.rps)} frames/s)`
  );
}

async function run(context: BenchContext): Promise<ScenarioReport> {
  const upstreamProcess = await startFloodProcess();
  const stops: Array<() => Promise<void>> = [];
  try {
    const targets = await relayTargets(context, upstreamProcess, stops);
    // Memory first, while no load has grown (or left garbage in) any heap.
    const memory = await memoryNotes(targets);
    const { measurements, comparisons } = await measureShapes(context, targets);
    // Last: stalled sockets leave the heaps grown. Not direct (the upstream's own buffers) nor
    // the floors (no flow control: they grow without bound).
    const stalled = await stalledNotes(
      targets.filter((t) => t.label === 'nginx' || !/direct|null relay|web leg/.test(t.label)),
      SUBSCRIPTION,
    );
    return {
      name: 'relay',
      title: 'The WebSocket relay against the upstream socket directly (both hosts)',
      notes: [
        ...relayNotes(targets.some((t) => t.label === 'nginx'), memory),
        ...streamCpuNotes(measurements),
        ...stalled,
      ],
      measurements,
      comparisons,
    };
  } finally {
    for (const stop of stops) await stop().catch(() => {});
    await upstreamProcess.stop();
  }
}

/** See the module comment. */
export const relayScenario: Scenario = {
  name: 'relay',
  title: 'relay round trips, streamed events/s and memory per idle socket vs direct',
  run,
};
