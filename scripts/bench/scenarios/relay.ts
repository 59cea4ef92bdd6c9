/**
 * Scenario 'relay': the WebSocket relay (WS /svc/graphql → {upstream}/graphql, both hosts)
 * against the upstream's socket directly, in one run, with the real graphql-ws client:
 *
 * Targets: the flood upstream's socket directly (../flood_upstream.ts: round trips answered
 * with a fixed next + complete, streams sent as fast as the socket drains), nginx passing the
 * upgrade through (the anchor of a proxy that never parses a frame; skipped when nginx is not
 * installed), the floors on each runtime with the host's legs and flow-control marks
 * (../floors/ `startHostLegsRelay`: node:http + `ws` + one write per turn toward the browser, as
 * both hosts run, with the runtime settings of their host; `pass` passes the bytes across, `plain`
 * parses and re-serialises every frame the plain way and nothing else), both hosts, and
 * `deno-serve`: the
 * Deno host served by Deno.serve with the fetch handler of `deno task serve:parallel`
 * (Deno.upgradeWebSocket for the browser leg; ../gateway_runner.ts SVC_BENCH_DENO_SERVE=1), the
 * Deno host before its switch to node:http, in the same rounds.
 *
 * 1. memory per idle socket (first, on fresh processes): the process's resident memory before
 *    and after opening 1000 acknowledged idle sockets (after 100 already open), over 1000;
 * 2. round trips: a query sent as a subscribe over open sockets (next + complete back: three
 *    relayed frames an operation), 1 socket × 1 in flight, 1 × 16 and 16 sockets × 1:
 *    operations/s, p50/p99 latency, the server process's CPU per operation;
 * 3. streaming (../relay_streams.ts): small (about 100 B) and 1 KiB frames, 1 socket × 1 stream
 *    and 16 sockets × 8 streams, in interleaved rounds: frames/s x direct, CPU s per 100k
 *    frames, x the plain floor's CPU, x nginx's ratio;
 * 4. stalled subscribers (last, on freshly started hosts run with an inspector, and nginx): eight
 *    sockets subscribe and stop reading their TCP socket for 25 s; the resident memory every
 *    second, then a minute after they closed, before and after a collection the bench forces.
 *
 * Speed is reported as ratios and added latency, never asserted. The scenario runs its own flood
 * upstream process and points every target at it, with the gateways' socket ceilings lifted
 * (RELAY_ENV).
 */
import {
  type ChildProcess,
  denoRun,
  type HostKind,
  ROOT,
  serveTaskEnv,
  startChildProcess,
} from '../../host_process.ts';
import { BENCH_GATEWAY_ENV } from '../context.ts';
import { FLOOD_QUERY } from '../flood_upstream.ts';
import { idleSocketMemory } from '../idle_sockets.ts';
import { collectGarbage, inspectorUrl } from '../inspector.ts';
import { floodPayload, streamCpuNotes, streamRounds } from '../relay_streams.ts';
import { STALLED_HOST_ENV, stalledNotes, type StalledTarget } from '../stalled_sockets.ts';
import {
  type BenchContext,
  compare,
  type Comparison,
  type Measurement,
  type Scenario,
  type ScenarioReport,
} from '../scenario.ts';
import { runSocketLoad, type SocketTarget } from '../socket_load.ts';
import { startNginx } from '../nginx.ts';
import { startHostLegsRelay } from '../floors/mod.ts';

/** Round-trip shapes: sockets open, operations in flight on each. */
export const ROUND_TRIP_SHAPES = [
  { sockets: 1, inFlight: 1 },
  { sockets: 1, inFlight: 16 },
  { sockets: 16, inFlight: 1 },
] as const;

/**
 * Idle sockets opened between the two memory readings (`count`), and those open before the first
 * (`warm`). RSS grows in heap-sized steps, so the count must be large enough that a step is a
 * small part of it (docs/benchmarks.md "What this machine can and cannot show").
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

const QUERY = { query: 'query RelayBench { currentUser { id } }' };

/** The Deno host on Deno.serve (see the module comment): the runner script and its switch. */
export const DENO_SERVE = {
  label: 'deno-serve',
  script: 'scripts/bench/gateway_runner.ts',
  env: { SVC_BENCH_DENO_SERVE: '1' },
} as const;

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
 * The targets, in order: direct, nginx (unless skipped), the floors, both hosts, the Deno host on
 * Deno.serve. What was started besides the gateways is stopped through `stops`.
 */
async function relayTargets(
  context: BenchContext,
  upstreamProcess: ChildProcess,
  stops: Array<() => Promise<void>>,
): Promise<SocketTarget[]> {
  const env = { ...RELAY_ENV, SVC_API_BASE: upstreamProcess.url };
  const deno = await context.startGateway({ kind: 'deno', env });
  const node = await context.startGateway({ kind: 'node', env });
  const denoServe = await context.startGateway({
    kind: 'deno',
    env: { ...env, ...DENO_SERVE.env },
    denoScript: DENO_SERVE.script,
  });
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
    for (const mode of ['pass', 'plain'] as const) {
      const floor = await startHostLegsRelay(kind, upstream, mode);
      stops.push(() => floor.stop());
      await context.placeServer(floor.pid);
      const url = `${wsUrl(floor.url)}/graphql`;
      const label = `null relay ${kind} ${mode}`;
      targets.push({ label, url, initPayload: authorized, pid: floor.pid });
    }
  }
  const path = (url: string) => `${wsUrl(url)}/svc/graphql`;
  targets.push(
    { label: 'deno', url: path(deno.url), initPayload: {}, pid: deno.pid },
    { label: 'node', url: path(node.url), initPayload: {}, pid: node.pid },
    { label: DENO_SERVE.label, url: path(denoServe.url), initPayload: {}, pid: denoServe.pid },
  );
  return targets;
}

/** Every round-trip shape over all targets. */
async function measureRoundTrips(context: BenchContext, targets: SocketTarget[]) {
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
  return { measurements, comparisons };
}

/** The command line of a fresh host with an inspector on a free port. */
function freshCommand(kind: HostKind | typeof DENO_SERVE.label): string[] {
  const inspect = '--inspect=127.0.0.1:0';
  if (kind === 'node') return ['node', inspect, `${ROOT}npm/bin/svc-gateway.js`];
  const script = kind === 'deno' ? 'hosts/deno/serve.ts' : DENO_SERVE.script;
  // not --quiet: it silences the line that names the inspector's address
  const [deno, run, ...rest] = denoRun(script).filter((a) => a !== '--quiet');
  return [deno, run, inspect, ...rest];
}

/**
 * A host started fresh for the stalled pass (`deno-serve`: the Deno host on Deno.serve; a Deno
 * host with what `deno task serve` sets, host_process.ts `serveTaskEnv`), with an inspector on a
 * free port so the bench can force a collection (inspector.ts); stopped through
 * `stops`.
 */
async function freshHost(
  kind: HostKind | typeof DENO_SERVE.label,
  context: BenchContext,
  upstreamUrl: string,
  stops: Array<() => Promise<void>>,
): Promise<StalledTarget> {
  const host = await startChildProcess({
    command: freshCommand(kind),
    env: {
      // a Deno host runs as `deno task serve` starts it (its allocator and V8 settings)
      ...(kind === 'node' ? {} : serveTaskEnv()),
      ...(kind === DENO_SERVE.label ? DENO_SERVE.env : {}),
      SVC_TOKEN: context.token,
      HOST: '127.0.0.1',
      PORT: '0',
      ...BENCH_GATEWAY_ENV,
      ...RELAY_ENV,
      ...STALLED_HOST_ENV,
      SVC_API_BASE: upstreamUrl,
    },
    ready: /listening on (http:\/\/\S+)/,
  });
  stops.push(() => host.stop());
  await context.placeServer(host.pid);
  let inspector = inspectorUrl(host.errors);
  for (let i = 0; i < 40 && inspector === null; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50)); // the line may follow the ready one
    inspector = inspectorUrl(host.errors);
  }
  return {
    label: kind,
    url: `${wsUrl(host.url)}/svc/graphql`,
    initPayload: {},
    pid: host.pid,
    gc: inspector ? () => collectGarbage(inspector) : undefined,
  };
}

/** How the scenario was set up, one sentence a line; then the memory lines. */
function relayNotes(nginxMeasured: boolean, memory: string[]): string[] {
  return [
    "round trips ('<target> SxN': S sockets, N operations in flight on each): subscribe " +
    '{ currentUser { id } } and its next + complete (3 relayed frames); requests = operations',
    "streams ('<target> stream SxN <size> rR': S sockets, N subscriptions on each, round R): " +
    "the flood upstream's stream; requests = events received, no latency (events carry no send " +
    'time)',
    'streams are sent as fast as the upstream socket drains (flood upstream: small frames of ' +
    'about 100 B, and 1 KiB frames): ' +
    'direct measures what this client reads; 16x8 saturates the machine (upstream, gateway ' +
    'and this client share the cpus), so a ' +
    "ratio near 1 says the relay keeps up with the upstream, and a gateway's cpu ms/req is the " +
    'CPU the relay spends per event',
    'memory: resident memory (VmRSS) of fresh processes, before any load; a gateway holds two ' +
    'sockets per browser socket (the browser one and its upstream leg)',
    'streams: interleaved rounds (every size, shape and target in turn each round); the ranges ' +
    "give per round frames/s x direct, cpu s per 100k frames, cpu x the same runtime's plain " +
    "floor, and x nginx's ratio",
    'cpu: the measured server process (the upstream for direct, the nginx worker, the gateway)',
    'nginx: the frame-blind anchor (bench/nginx.ts: the upgrade passed through, frames ' +
    'relayed as bytes; the client sends the token in connection_init as it does directly)' +
    (nginxMeasured ? '' : ': skipped, no nginx found'),
    "null relay <runtime> pass / plain: the floors (bench/floors/), with the hosts' legs " +
    '(node:http + a ws server, one write per turn toward the browser, the ws client upstream), ' +
    "their host's runtime settings and flow-control marks; pass: bytes passed across; plain: " +
    'JSON.parse + JSON.stringify of every frame and nothing else; the client sends the token in ' +
    'connection_init',
    'deno: `deno task serve` (node:http + ws on Deno); deno-serve: the same core served by ' +
    'Deno.serve + Deno.upgradeWebSocket (the serve:parallel handler, one process: the Deno host ' +
    'before its switch; bench/gateway_runner.ts SVC_BENCH_DENO_SERVE=1); cpu x plain floor: ' +
    'against the Deno plain floor for both',
    'stalled: on freshly started hosts run with --inspect (the collection after the close is ' +
    'forced by the bench through the inspector, never by the product) and their stall close ' +
    `past the pass (WS_STALL_TIMEOUT_MS=${STALLED_HOST_ENV.WS_STALL_TIMEOUT_MS}), all targets at once`,
    ...memory,
  ];
}

async function run(context: BenchContext): Promise<ScenarioReport> {
  const upstreamProcess = await startFloodProcess();
  const stops: Array<() => Promise<void>> = [];
  try {
    const targets = await relayTargets(context, upstreamProcess, stops);
    // Memory first, while no load has grown (or left garbage in) any heap.
    const memory = await memoryNotes(targets);
    const trips = await measureRoundTrips(context, targets);
    const { durationS, warmupS } = context.settings;
    const streams = await streamRounds(targets, durationS, warmupS);
    // Last, on fresh hosts: stalled sockets leave the heaps grown. Not direct (the upstream's
    // own buffers) nor the floors (no bounds of their own past the marks).
    const stalledTargets: StalledTarget[] = targets.filter((t) => t.label === 'nginx');
    for (const kind of ['deno', 'node', DENO_SERVE.label] as const) {
      stalledTargets.push(await freshHost(kind, context, upstreamProcess.url, stops));
    }
    const stalled = await stalledNotes(stalledTargets, floodPayload(FLOOD_QUERY));
    return {
      name: 'relay',
      title: 'The WebSocket relay against the upstream socket directly (both hosts)',
      notes: [
        ...relayNotes(targets.some((t) => t.label === 'nginx'), memory),
        ...streamCpuNotes(streams.measurements),
        ...stalled,
      ],
      measurements: [...trips.measurements, ...streams.measurements],
      comparisons: [...trips.comparisons, ...streams.comparisons],
      ranges: streams.ranges,
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
