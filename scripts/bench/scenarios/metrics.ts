/**
 * Scenario 'metrics' (the goal: metrics on cost <= 3% of throughput; docs/benchmarks.md
 * "Metrics on against off"): each host against the
 * fixed-answer upstream (../fixed_upstream.ts) with metrics off and with METRICS=1, the bench
 * document at concurrency 32, ROUNDS interleaved rounds. The figure per host is req/s with
 * metrics on x req/s with metrics off, per round (min..max over rounds); then each host's pair
 * loaded together in paired slices (paired.ts).
 */
import {
  type BenchContext,
  compare,
  type Comparison,
  type Measurement,
  type Scenario,
  type ScenarioReport,
  type Target,
} from '../scenario.ts';
import { startFixedUpstream, targetsBody } from './targets.ts';
import { range, ROUNDS } from '../rounds.ts';
import { measurePaired, PAIRED_NOTE } from '../paired.ts';

async function run(context: BenchContext): Promise<ScenarioReport> {
  const body = targetsBody();
  const upstream = await startFixedUpstream();
  try {
    const off = { SVC_API_BASE: upstream.url };
    const on = { ...off, METRICS: '1' };
    const targets: Target[] = [];
    for (const kind of ['deno', 'node'] as const) {
      for (const [label, env] of [['off', off], ['on', on]] as const) {
        const gateway = await context.startGateway({ kind, env });
        targets.push({
          label: `${kind} ${label}`,
          url: `${gateway.url}/svc/graphql`,
          pid: gateway.pid,
        });
      }
    }
    const measurements: Measurement[] = [];
    const comparisons: Comparison[] = [];
    const ratios: Record<string, number[]> = { deno: [], node: [] };
    for (let round = 1; round <= ROUNDS; round++) {
      const byLabel = new Map<string, Measurement>();
      for (const target of targets) {
        const m = await context.measure(target, body, 32, context.settings.roundS);
        measurements.push({ ...m, target: `${target.label} r${round}` });
        byLabel.set(target.label, m);
      }
      for (const kind of ['deno', 'node'] as const) {
        const base = byLabel.get(`${kind} off`)!;
        const metered = byLabel.get(`${kind} on`)!;
        comparisons.push(compare(`${kind} metrics on / off r${round}`, base, metered));
        ratios[kind].push(metered.rps / base.rps);
      }
    }
    const paired = [
      await measurePaired(context, targets[0], targets[1], body),
      await measurePaired(context, targets[2], targets[3], body),
    ];
    return {
      name: 'metrics',
      title: 'Metrics on vs off, each host, fixed-answer upstream, c=32',
      notes: [`${ROUNDS} interleaved rounds; goal: on >= 0.97x off`, PAIRED_NOTE],
      measurements: [...measurements, ...paired.flatMap((p) => p.measurements)],
      comparisons,
      ranges: [
        range('deno', 'c=32 req/s metrics on x off', ratios.deno),
        range('node', 'c=32 req/s metrics on x off', ratios.node),
        ...paired.flatMap((p) => p.ranges),
      ],
    };
  } finally {
    await upstream.stop().catch(() => {});
  }
}

/** See the module comment. */
export const metricsScenario: Scenario = {
  name: 'metrics',
  title: 'metrics on vs off on both hosts (fixed-answer upstream, c=32)',
  run,
};
