/**
 * Interleaved rounds (docs/benchmarks.md "The gateway's own cost"): in each round every target is
 * measured at concurrency 32, then at 1, so the machine's other load falls on every target alike;
 * ratios are then taken per round against that round's baseline target and folded into min..max
 * rows. Before round 1 every target is loaded once, unmeasured ({@link FIRST_WARMUP_S}). Used by
 * the `targets`, `checks` and `gate` scenarios.
 */
import {
  type BenchContext,
  compare,
  type Comparison,
  type Measurement,
  type Range,
  type Target,
} from './scenario.ts';

/** Interleaved rounds per scenario. */
export const ROUNDS = 3;

/** Seconds each target is loaded, unmeasured, before round 1. */
export const FIRST_WARMUP_S = 3;

/** Concurrencies measured in each round, in order. */
export const CONCURRENCIES = [32, 1] as const;

/** Every round's measurements by `${label}@${connections}`, and the flat lists for the report. */
export interface RoundsResult {
  rounds: Map<string, Measurement>[];
  measurements: Measurement[];
  comparisons: Comparison[];
}

/**
 * Measures `targets` in {@link ROUNDS} interleaved rounds; `targets[0]` is the baseline every
 * other target is compared with, per round and concurrency.
 */
export async function measureRounds(
  context: BenchContext,
  targets: readonly Target[],
  body: string,
): Promise<RoundsResult> {
  const measurements: Measurement[] = [];
  const comparisons: Comparison[] = [];
  const rounds: Map<string, Measurement>[] = [];
  const [base, ...others] = targets;
  // a first, discarded pass at full load: a fresh process's first seconds (JIT tiers, heap growth)
  // would otherwise fall on round 1 only
  for (const target of targets) {
    await context.measure(target, body, CONCURRENCIES[0], FIRST_WARMUP_S);
  }
  for (let round = 1; round <= ROUNDS; round++) {
    const byKey = new Map<string, Measurement>();
    for (const connections of CONCURRENCIES) {
      for (const target of targets) {
        const m = await context.measure(target, body, connections, context.settings.roundS);
        measurements.push({ ...m, target: `${target.label} r${round}` });
        byKey.set(`${target.label}@${connections}`, m);
      }
      for (const target of others) {
        comparisons.push(
          compare(
            `${target.label} / ${base.label} r${round}`,
            byKey.get(`${base.label}@${connections}`)!,
            byKey.get(`${target.label}@${connections}`)!,
          ),
        );
      }
    }
    rounds.push(byKey);
  }
  return { rounds, measurements, comparisons };
}

/** min..max and median of `values` as a Range row. */
export function range(subject: string, figure: string, values: number[]): Range {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { subject, figure, min: sorted[0], max: sorted[sorted.length - 1], median, values };
}

/** One round's pair of measurements, baseline and subject, at `connections`. */
function pairs(rounds: Map<string, Measurement>[], base: string, subject: string, c: number) {
  return rounds.map((r) => ({ b: r.get(`${base}@${c}`)!, s: r.get(`${subject}@${c}`)! }));
}

/**
 * The per-round figures of `subject` against `base`: throughput ratio at the high concurrency
 * (32), added p50 and p99 (ms) and p99 ratio at the low one (1), and CPU per request at the high
 * one, both as s per 10k requests and as a ratio.
 */
export function ratioRanges(
  rounds: Map<string, Measurement>[],
  base: string,
  subject: string,
): Range[] {
  const [high, low] = CONCURRENCIES;
  const atHigh = pairs(rounds, base, subject, high);
  const atLow = pairs(rounds, base, subject, low);
  const x = `x ${base}`;
  return [
    range(subject, `c=${high} req/s ${x}`, atHigh.map(({ b, s }) => s.rps / b.rps)),
    range(subject, `c=${low} added p50 ms`, atLow.map(({ b, s }) => s.p50Ms - b.p50Ms)),
    range(subject, `c=${low} added p99 ms`, atLow.map(({ b, s }) => s.p99Ms - b.p99Ms)),
    range(subject, `c=${low} p99 ${x}`, atLow.map(({ b, s }) => s.p99Ms / b.p99Ms)),
    range(
      subject,
      `cpu s per 10k req (c=${high})`,
      atHigh.map(({ s }) => s.cpuMsPerRequest * 10),
    ),
    range(
      subject,
      `cpu per req ${x} (c=${high})`,
      atHigh.map(({ b, s }) => s.cpuMsPerRequest / b.cpuMsPerRequest),
    ),
  ];
}
