/**
 * Scenario 'pieces' (docs/benchmarks.md "Speed-only pieces"): this tree's hosts against other
 * checkouts of the same commit, each with one speed-only piece replaced by the plain code, in the
 * same run, so every figure "without it" has its "with it" measured beside it.
 *
 * SVC_BENCH_VARIANTS="<name>=<dir>:<parts>,...": each checkout (its npm/ built:
 * `deno task build:npm` there) and what to measure on it, `+`-joined from:
 * - `relay`: the relay's streams (../relay_streams.ts: 1x1 and 16x8, small and 1 KiB frames,
 *   interleaved rounds), with direct, nginx and the plain floors of both runtimes in the same
 *   rounds, so frames/s x direct and CPU x the plain floor read as the relay's goals do;
 * - `idle`: memory per idle relayed socket (../idle_sockets.ts, 1000 after 100) on hosts started
 *   fresh for each of IDLE_ROUNDS interleaved rounds;
 * - `post`: the bench document against the fixed-answer upstream, each host paired with the
 *   same host of the variant (../paired.ts): req/s and CPU per request, variant x this tree.
 * Unset, the scenario measures nothing and says so.
 */
import type {
  BenchContext,
  Measurement,
  Range,
  Scenario,
  ScenarioReport,
  Target,
} from '../scenario.ts';
import type { HostKind } from '../../host_process.ts';
import { type ChildProcess, denoRun, startChildProcess } from '../../host_process.ts';
import { startFixedUpstream, targetsBody } from './targets.ts';
import { IDLE_SOCKETS, RELAY_ENV } from './relay.ts';
import { range } from '../rounds.ts';
import { measurePaired, PAIRED_NOTE } from '../paired.ts';
import { idleSocketMemory } from '../idle_sockets.ts';
import { streamCpuNotes, streamRounds } from '../relay_streams.ts';
import type { SocketTarget } from '../socket_load.ts';
import { runStreamLoad } from '../stream_load.ts';
import { startNginx } from '../nginx.ts';
import { startHostLegsRelay } from '../floors/mod.ts';

/** What a variant is measured on. */
type Part = 'relay' | 'idle' | 'post';
const PARTS: readonly Part[] = ['relay', 'idle', 'post'];

/** One checkout to compare: its name (labels read `<kind> <name>`), root and parts. */
interface Variant {
  name: string;
  root: string;
  parts: Part[];
}

/** Fresh-host rounds of the idle-memory part. */
const IDLE_ROUNDS = 3;
const KINDS: readonly HostKind[] = ['deno', 'node'];

/** SVC_BENCH_VARIANTS read (see the module comment); throws on a malformed entry. */
export function readVariants(text: string | undefined): Variant[] {
  if (!text?.trim()) return [];
  return text.split(',').map((entry) => {
    const match = /^([\w-]+)=([^:]+):([\w+]+)$/.exec(entry.trim());
    if (!match) throw new Error(`SVC_BENCH_VARIANTS: "${entry}" is not <name>=<dir>:<parts>`);
    const parts = match[3].split('+') as Part[];
    for (const part of parts) {
      if (!PARTS.includes(part)) throw new Error(`SVC_BENCH_VARIANTS: unknown part "${part}"`);
    }
    const root = match[2].endsWith('/') ? match[2] : `${match[2]}/`;
    return { name: match[1], root, parts };
  });
}

const wsUrl = (url: string) => url.replace(/^http/, 'ws');
const label = (kind: HostKind, variant: Variant | null) =>
  variant ? `${kind} ${variant.name}` : kind;

function startFloodProcess(): Promise<ChildProcess> {
  return startChildProcess({
    command: denoRun('scripts/bench/flood_upstream.ts'),
    env: { PORT: '0', HOST: '127.0.0.1' },
    ready: /^(http:\/\/\S+)$/,
  });
}

/** Streams: direct, nginx, the plain floors, this tree's hosts and the variants' hosts. */
async function relay(context: BenchContext, variants: Variant[], flood: ChildProcess) {
  const stops: Array<() => Promise<void>> = [];
  try {
    const authorized = { authToken: `Bearer ${context.token}` };
    const upstream = `${wsUrl(flood.url)}/graphql`;
    const targets: SocketTarget[] = [
      { label: 'direct', url: upstream, initPayload: authorized, pid: flood.pid },
    ];
    const nginx = await startNginx(flood.url, context.token);
    if (!('skipped' in nginx)) {
      stops.push(nginx.stop);
      await context.placeServer(nginx.pid);
      const url = `${wsUrl(nginx.url)}/graphql`;
      targets.push({ label: 'nginx', url, initPayload: authorized, pid: nginx.pid });
    }
    for (const kind of KINDS) {
      const floor = await startHostLegsRelay(kind, upstream, 'plain');
      stops.push(() => floor.stop());
      await context.placeServer(floor.pid);
      const url = `${wsUrl(floor.url)}/graphql`;
      targets.push({
        label: `null relay ${kind} plain`,
        url,
        initPayload: authorized,
        pid: floor.pid,
      });
    }
    for (const kind of KINDS) {
      for (const variant of [null, ...variants]) {
        const env = { ...RELAY_ENV, SVC_API_BASE: flood.url };
        const host = await context.startGateway({ kind, env, root: variant?.root });
        const url = `${wsUrl(host.url)}/svc/graphql`;
        targets.push({ label: label(kind, variant), url, initPayload: {}, pid: host.pid });
      }
    }
    const { durationS, warmupS } = context.settings;
    const failures: string[] = [];
    // a plain variant may fail a stream's start; it is tried once more and the failure noted
    const measure: typeof runStreamLoad = async (spec, d, w) => {
      try {
        return await runStreamLoad(spec, d, w);
      } catch (error) {
        failures.push(`${spec.label}: a stream failed to start (${(error as Error).message})`);
        return await runStreamLoad(spec, d, w);
      }
    };
    return { ...await streamRounds(targets, durationS, warmupS, measure), failures };
  } finally {
    for (const stop of stops) await stop().catch(() => {});
  }
}

/** Memory per idle relayed socket, KiB, on hosts started fresh each round. */
async function idle(context: BenchContext, variants: Variant[], flood: ChildProcess) {
  const series = new Map<string, number[]>();
  for (let round = 1; round <= IDLE_ROUNDS; round++) {
    for (const kind of KINDS) {
      for (const variant of [null, ...variants]) {
        const env = { ...RELAY_ENV, SVC_API_BASE: flood.url };
        const host = await context.startGateway({ kind, env, root: variant?.root });
        try {
          const m = await idleSocketMemory({
            ...IDLE_SOCKETS,
            url: `${wsUrl(host.url)}/svc/graphql`,
            initPayload: {},
            pid: host.pid,
          });
          const key = label(kind, variant);
          series.set(key, [...series.get(key) ?? [], m.perSocketBytes / 1024]);
        } finally {
          await host.stop().catch(() => {});
        }
      }
    }
  }
  return [...series].map(([subject, values]) =>
    range(subject, 'memory per idle relayed socket, KiB', values)
  );
}

/** POST: each host paired with the same host of each variant. */
async function post(context: BenchContext, variants: Variant[]) {
  const body = targetsBody();
  const upstream = await startFixedUpstream();
  const measurements: Measurement[] = [];
  const ranges: Range[] = [];
  try {
    for (const variant of variants) {
      for (const kind of KINDS) {
        const pair: Target[] = [];
        const hosts = [];
        for (const which of [null, variant]) {
          const env = { SVC_API_BASE: upstream.url };
          const host = await context.startGateway({ kind, env, root: which?.root });
          hosts.push(host);
          pair.push({ label: label(kind, which), url: `${host.url}/svc/graphql`, pid: host.pid });
        }
        try {
          const paired = await measurePaired(context, pair[0], pair[1], body);
          measurements.push(...paired.measurements);
          ranges.push(...paired.ranges);
        } finally {
          for (const host of hosts) await host.stop().catch(() => {});
        }
      }
    }
  } finally {
    await upstream.stop().catch(() => {});
  }
  return { measurements, ranges };
}

async function run(context: BenchContext): Promise<ScenarioReport> {
  const variants = readVariants(Deno.env.get('SVC_BENCH_VARIANTS'));
  const on = (part: Part) => variants.filter((v) => v.parts.includes(part));
  const notes = [
    ...variants.map((v) => `variant ${v.name}: ${v.root} (${v.parts.join(', ')})`),
    `idle: ${IDLE_SOCKETS.count} sockets after ${IDLE_SOCKETS.warm}, fresh hosts, ` +
    `${IDLE_ROUNDS} interleaved rounds`,
    PAIRED_NOTE,
  ];
  if (variants.length === 0) notes.unshift('SVC_BENCH_VARIANTS unset: nothing measured');
  const measurements: Measurement[] = [];
  const ranges: Range[] = [];
  const flood = await startFloodProcess();
  try {
    if (on('idle').length > 0) ranges.push(...await idle(context, on('idle'), flood));
    if (on('relay').length > 0) {
      const streams = await relay(context, on('relay'), flood);
      measurements.push(...streams.measurements);
      ranges.push(...streams.ranges);
      notes.push(...streams.failures, ...streamCpuNotes(streams.measurements));
    }
  } finally {
    await flood.stop().catch(() => {});
  }
  if (on('post').length > 0) {
    const paired = await post(context, on('post'));
    measurements.push(...paired.measurements);
    ranges.push(...paired.ranges);
  }
  return {
    name: 'pieces',
    title: "Speed-only pieces: this tree's hosts against checkouts with the plain code",
    notes,
    measurements,
    comparisons: [],
    ranges,
  };
}

/** See the module comment. */
export const piecesScenario: Scenario = {
  name: 'pieces',
  title: 'each speed-only piece against the plain code, in the same run (SVC_BENCH_VARIANTS)',
  run,
};
