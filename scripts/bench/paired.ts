/**
 * Paired slices (the on/off pairs; docs/benchmarks.md "The checks, the session gate and metrics
 * (paired slices)"): both configurations loaded at the same time, half the connections each, in
 * short slices, each slice's ratio taken between the two. The machine's speed drifts within a
 * minute, and two runs one after the other each get their own share of that drift; two processes
 * loaded together get the same (docs/benchmarks.md "What this machine can and cannot show").
 *
 * Under `--pin` both servers share the servers' CPU (pin.ts), so each one's throughput is its
 * share of one core and the ratio of the two is the ratio of their costs per request.
 */
import type { BenchContext, Measurement, Range, Target } from './scenario.ts';
import { CONCURRENCIES, FIRST_WARMUP_S, range } from './rounds.ts';

/** Slices per pair. */
export const PAIRED_SLICES = 8;

/** Seconds per slice. */
export const PAIRED_SLICE_S = 3;

/** The note a scenario with paired slices adds. */
export const PAIRED_NOTE = `paired: both configurations loaded together, ${PAIRED_SLICES} slices ` +
  `of ${PAIRED_SLICE_S} s, c=${CONCURRENCIES[0] / 2} each; ratios per slice`;

/** The per-slice measurements of a pair, and the ratio rows of `subject` against `base`. */
export interface PairedResult {
  measurements: Measurement[];
  ranges: Range[];
}

/**
 * Loads `base` and `subject` together ({@link PAIRED_SLICES} slices of {@link PAIRED_SLICE_S}
 * s, each on half of the scenario's high concurrency) after one unmeasured pass of
 * FIRST_WARMUP_S; both are probed first (200 with data). Ranges: req/s and CPU per request of
 * `subject` x `base`, per slice. The options shorten it (tests).
 */
export async function measurePaired(
  context: BenchContext,
  base: Target,
  subject: Target,
  body: string,
  { slices = PAIRED_SLICES, sliceS = PAIRED_SLICE_S, warmupS = FIRST_WARMUP_S } = {},
): Promise<PairedResult> {
  const pair = [base, subject];
  const connections = CONCURRENCIES[0] / 2;
  for (const target of pair) await context.probe(target, body);
  await context.measureTogether(pair, body, connections, warmupS);
  const measurements: Measurement[] = [];
  const rps: number[] = [];
  const cpu: number[] = [];
  for (let slice = 1; slice <= slices; slice++) {
    const [b, s] = await context.measureTogether(pair, body, connections, sliceS);
    measurements.push({ ...b, target: `${b.target} p${slice}` }, {
      ...s,
      target: `${s.target} p${slice}`,
    });
    rps.push(s.rps / b.rps);
    cpu.push(s.cpuMsPerRequest / b.cpuMsPerRequest);
  }
  const x = `x ${base.label}`;
  return {
    measurements,
    ranges: [
      range(subject.label, `paired req/s ${x} (c=${connections} each)`, rps),
      range(subject.label, `paired cpu per req ${x}`, cpu),
    ],
  };
}
