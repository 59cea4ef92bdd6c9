/**
 * Scenario 'metrics' (the goal: metrics on cost <= 3% of throughput; docs/benchmarks.md
 * "Metrics on against off"): each host against the
 * fixed-answer upstream (../fixed_upstream.ts) with metrics off and with METRICS=1, the bench
 * document at concurrency 32, ROUNDS interleaved rounds. The figure per host is req/s with
 * metrics on x req/s with metrics off, per round (min..max over rounds); then each host's pair
 * loaded together in paired slices (paired.ts). With workers (docs/operations.md "Metrics of a
 * worker deployment"): the Node host with WORKERS=2, metrics on against off, then metrics on
 * while a scraper (../scraper.ts) reads /svc/metrics every SCRAPE_EVERY_MS against metrics on, in
 * paired slices (req/s only: a worker deployment's CPU is in its workers, not the primary the
 * bench reads), and how long those scrapes took.
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
import { FIRST_WARMUP_S, range, ROUNDS } from '../rounds.ts';
import { measurePaired, PAIRED_NOTE } from '../paired.ts';
import { startScraper } from '../scraper.ts';
import { childPids } from '../proc.ts';

/** The scraper's interval with workers, ms (a Prometheus at 1 s: far more often than usual). */
const SCRAPE_EVERY_MS = 1_000;

/**
 * The workers pairs: Node with WORKERS=2, metrics on x off, then metrics on and scraped x on (the
 * cost of a deployment scrape); the scrapes' figures.
 */
async function workersPair(context: BenchContext, off: Record<string, string>, body: string) {
  const on = { ...off, METRICS: '1' };
  const targets: Target[] = [];
  for (const [label, env] of [['off', off], ['on', on], ['scraped', on]] as const) {
    const gateway = await context.startGateway({ kind: 'node', env: { ...env, WORKERS: '2' } });
    for (const worker of await childPids(gateway.pid)) await context.placeServer(worker);
    targets.push({
      label: `node x2 ${label}`,
      url: `${gateway.url}/svc/graphql`,
      pid: gateway.pid,
    });
  }
  const metered = await measurePaired(context, targets[0], targets[1], body);
  // the scraped gateway comes fresh to its pair: as warm as the other first (unmeasured)
  await context.measure(targets[2], body, 16, 2 * FIRST_WARMUP_S);
  const scraper = startScraper(
    targets[2].url.replace('/svc/graphql', '/svc/metrics'),
    SCRAPE_EVERY_MS,
  );
  const scraped = await measurePaired(context, targets[1], targets[2], body);
  const scrapes = await scraper.stop();
  return {
    measurements: [...metered.measurements, ...scraped.measurements],
    ranges: [...metered.ranges, ...scraped.ranges].filter((r) => r.figure.includes('req/s')),
    note: `node x2 scraped: every ${SCRAPE_EVERY_MS} ms under load: ${scrapes.scrapes} scrapes ` +
      `(${scrapes.failed} failed), median ${scrapes.medianMs.toFixed(1)} ms, max ` +
      `${scrapes.maxMs.toFixed(1)} ms`,
  };
}

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
    const workers = await workersPair(context, off, body);
    return {
      name: 'metrics',
      title: 'Metrics on vs off, each host, fixed-answer upstream, c=32',
      notes: [`${ROUNDS} interleaved rounds; goal: on >= 0.97x off`, PAIRED_NOTE, workers.note],
      measurements: [
        ...measurements,
        ...paired.flatMap((p) => p.measurements),
        ...workers.measurements,
      ],
      comparisons,
      ranges: [
        range('deno', 'c=32 req/s metrics on x off', ratios.deno),
        range('node', 'c=32 req/s metrics on x off', ratios.node),
        ...paired.flatMap((p) => p.ranges),
        ...workers.ranges,
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
