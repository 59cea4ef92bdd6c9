/**
 * Scenario 'memory' (docs/operations.md "Memory": "the accounting costs at most 2% at the
 * median"): each host with the memory accountant on (the default budget) and off
 * (MEMORY_BUDGET_BYTES=off).
 * - HTTP: the bench document (../document.ts) against the fixed-answer upstream, both loaded together in paired
 *   slices (paired.ts): req/s on x off per slice.
 * - Relay: 16 sockets x 8 subscriptions streaming from the flood upstream (1 KiB frames, as fast
 *   as the relay takes them), ROUNDS_RELAY interleaved rounds of off then on: frames/s on x off
 *   per round (two streaming loads at once would split the bench client, so not paired).
 */
import type { Measurement, Scenario, ScenarioReport, Target } from '../scenario.ts';
import { startFixedUpstream, targetsBody } from './targets.ts';
import { range } from '../rounds.ts';
import { measurePaired, PAIRED_NOTE } from '../paired.ts';
import { runStreamLoad } from '../stream_load.ts';
import type { SocketTarget } from '../socket_load.ts';
import { type ChildProcess, denoRun, startChildProcess } from '../../host_process.ts';
import { FLOOD_QUERY } from '../flood_upstream.ts';
import { WORLD_IDS } from '../../sandbox/mod.ts';
import { RELAY_ENV } from './relay.ts';
import type { BenchContext } from '../scenario.ts';

/** Interleaved relay rounds per host. */
const ROUNDS_RELAY = 5;
const STREAM = { sockets: 16, streams: 8 } as const;
const SUBSCRIPTION = { query: FLOOD_QUERY, variables: { botID: WORLD_IDS.bot1 } };
const OFF = { MEMORY_BUDGET_BYTES: 'off' };

function startFloodProcess(): Promise<ChildProcess> {
  return startChildProcess({
    command: denoRun('scripts/bench/flood_upstream.ts'),
    env: { PORT: '0', HOST: '127.0.0.1' },
    ready: /^(http:\/\/\S+)$/,
  });
}

/** HTTP: each host's off and on loaded together, paired slices. */
async function http(context: BenchContext) {
  const body = targetsBody();
  const upstream = await startFixedUpstream();
  try {
    const results = [];
    for (const kind of ['deno', 'node'] as const) {
      const pair: Target[] = [];
      for (const [label, env] of [['off', OFF], ['on', {}]] as const) {
        const gateway = await context.startGateway({
          kind,
          env: { SVC_API_BASE: upstream.url, ...env },
        });
        pair.push({
          label: `${kind} ${label}`,
          url: `${gateway.url}/svc/graphql`,
          pid: gateway.pid,
        });
      }
      results.push(await measurePaired(context, pair[0], pair[1], body));
    }
    return results;
  } finally {
    await upstream.stop().catch(() => {});
  }
}

/** Relay: each host's off and on streaming in turn, interleaved rounds. */
async function relay(context: BenchContext) {
  const flood = await startFloodProcess();
  const measurements: Measurement[] = [];
  const ratios: Record<string, number[]> = { deno: [], node: [] };
  try {
    for (const kind of ['deno', 'node'] as const) {
      const targets: SocketTarget[] = [];
      for (const [label, env] of [['off', OFF], ['on', {}]] as const) {
        const gateway = await context.startGateway({
          kind,
          env: { ...RELAY_ENV, SVC_API_BASE: flood.url, ...env },
        });
        const url = `${gateway.url.replace(/^http/, 'ws')}/svc/graphql`;
        targets.push({ label: `${kind} ${label}`, url, initPayload: {}, pid: gateway.pid });
      }
      for (let round = 1; round <= ROUNDS_RELAY; round++) {
        const got: Measurement[] = [];
        for (const t of targets) {
          const m = await runStreamLoad(
            { ...t, label: `${t.label} r${round}`, payload: SUBSCRIPTION, ...STREAM },
            context.settings.durationS,
            context.settings.warmupS,
          );
          got.push(m);
        }
        measurements.push(...got);
        ratios[kind].push(got[1].rps / got[0].rps);
      }
    }
  } finally {
    await flood.stop().catch(() => {});
  }
  return { measurements, ratios };
}

async function run(context: BenchContext): Promise<ScenarioReport> {
  const paired = await http(context);
  const streamed = await relay(context);
  return {
    name: 'memory',
    title: 'Memory accountant on vs off (MEMORY_BUDGET_BYTES=off), each host: HTTP and relay',
    notes: [
      'goal: on >= 0.98x off at the median',
      PAIRED_NOTE,
      `relay: ${STREAM.sockets}x${STREAM.streams} streams, ${ROUNDS_RELAY} interleaved rounds`,
    ],
    measurements: [...paired.flatMap((p) => p.measurements), ...streamed.measurements],
    comparisons: [],
    ranges: [
      ...paired.flatMap((p) => p.ranges),
      range(
        'deno',
        `relay frames/s on x off (${STREAM.sockets}x${STREAM.streams})`,
        streamed.ratios.deno,
      ),
      range(
        'node',
        `relay frames/s on x off (${STREAM.sockets}x${STREAM.streams})`,
        streamed.ratios.node,
      ),
    ],
  };
}

/** See the module comment. */
export const memoryScenario: Scenario = {
  name: 'memory',
  title: 'memory accountant on vs off on both hosts (HTTP paired, relay streaming)',
  run,
};
