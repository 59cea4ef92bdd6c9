/**
 * The relay scenario's streaming pass: subscriptions streaming from the flood upstream as fast as
 * its socket drains, measured on every target in {@link STREAM_ROUNDS} interleaved rounds (each
 * round: every frame size, every shape, every target in turn, so the machine's other load falls
 * on all alike), with the figures taken per round against that round's direct and floors:
 *
 * - frames/s x direct (every round: the relay's goal is ">= 0.9x direct in every round",
 *   docs/benchmarks.md "WebSocket relay");
 * - CPU s per 100k frames of the measured process, and x the plain floor on the same runtime
 *   (`null relay <runtime> plain`: parse + stringify of every frame and nothing else);
 * - at 16x8, a host's ratio x nginx's ratio (nginx: the frame-blind anchor).
 */
import { WORLD_IDS } from '../sandbox/mod.ts';
import { FLOOD_QUERY, SMALL_QUERY } from './flood_upstream.ts';
import { range } from './rounds.ts';
import { compare, type Comparison, type Measurement, type Range } from './scenario.ts';
import type { SocketPayload, SocketTarget } from './socket_load.ts';
import { runStreamLoad } from './stream_load.ts';

/** Streaming shapes: sockets open, subscriptions streaming on each. */
export const STREAM_SHAPES = [
  { sockets: 1, streams: 1 },
  { sockets: 16, streams: 8 },
] as const;

/** Frame sizes: the flood upstream's small frames (about 100 bytes) and its 1 KiB ones. */
export const FRAME_SIZES = [
  { size: 'small', query: SMALL_QUERY },
  { size: '1KiB', query: FLOOD_QUERY },
] as const;

/** Interleaved rounds of the streaming pass. */
export const STREAM_ROUNDS = 3;

/** The subscription of one frame size (bot1 passes the gateway's fence). */
export function floodPayload(query: string): SocketPayload {
  return { query, variables: { botID: WORLD_IDS.bot1 } };
}

/** Everything the pass measured and the figures folded over its rounds. */
export interface StreamRounds {
  measurements: Measurement[];
  comparisons: Comparison[];
  ranges: Range[];
}

/** The plain floor of a gateway or floor label's runtime ('deno' / 'node'), if any. */
function plainFloorOf(label: string): string | null {
  if (label === 'deno' || label === 'deno-serve' || label === 'null relay deno pass') {
    return 'null relay deno plain';
  }
  if (label === 'node' || label === 'null relay node pass') return 'null relay node plain';
  // a host of another checkout (scenario pieces: '<runtime> <variant>')
  if (label.startsWith('deno ')) return 'null relay deno plain';
  if (label.startsWith('node ')) return 'null relay node plain';
  return null;
}

/** One round's figures of every target at one size and shape (`byLabel`: its measurements). */
function roundFigures(byLabel: Map<string, Measurement>): Map<string, Record<string, number>> {
  const direct = byLabel.get('direct')!;
  const nginx = byLabel.get('nginx');
  const out = new Map<string, Record<string, number>>();
  for (const [label, m] of byLabel) {
    const figures: Record<string, number> = {
      'frames/s x direct': m.rps / direct.rps,
      'cpu s per 100k frames': m.cpuMsPerRequest * 100,
    };
    const floor = plainFloorOf(label);
    const floorM = floor ? byLabel.get(floor) : undefined;
    if (floorM) figures['cpu x plain floor'] = m.cpuMsPerRequest / floorM.cpuMsPerRequest;
    if (nginx && label !== 'nginx' && label !== 'direct') {
      figures['ratio x nginx ratio'] = m.rps / nginx.rps;
    }
    out.set(label, figures);
  }
  return out;
}

/**
 * Runs the pass over `targets` (direct first). Each measurement: `warmupS` of streaming, then
 * `durationS` counted; the target's label gets ` stream SxN <size> r<round>`. `measure` takes a
 * measurement (default: runStreamLoad, which throws when a stream fails to start).
 */
export async function streamRounds(
  targets: SocketTarget[],
  durationS: number,
  warmupS: number,
  measure: typeof runStreamLoad = runStreamLoad,
): Promise<StreamRounds> {
  const measurements: Measurement[] = [];
  const comparisons: Comparison[] = [];
  /** key `${label}|${shape} ${size}|${figure}` → one value per round. */
  const series = new Map<string, number[]>();
  for (let round = 1; round <= STREAM_ROUNDS; round++) {
    for (const { size, query } of FRAME_SIZES) {
      for (const { sockets, streams } of STREAM_SHAPES) {
        const shape = `${sockets}x${streams} ${size}`;
        const byLabel = new Map<string, Measurement>();
        for (const t of targets) {
          const m = await measure(
            {
              ...t,
              label: `${t.label} stream ${shape} r${round}`,
              payload: floodPayload(query),
              sockets,
              streams,
            },
            durationS,
            warmupS,
          );
          measurements.push(m);
          byLabel.set(t.label, m);
        }
        for (const t of targets.slice(1)) {
          comparisons.push(
            compare(`${t.label} / direct, stream ${shape} r${round}`, byLabel.get('direct')!, {
              ...byLabel.get(t.label)!,
            }),
          );
        }
        for (const [label, figures] of roundFigures(byLabel)) {
          for (const [figure, value] of Object.entries(figures)) {
            const key = `${label}|${shape}|${figure}`;
            series.set(key, [...series.get(key) ?? [], value]);
          }
        }
      }
    }
  }
  const ranges = [...series].map(([key, values]) => {
    const [label, shape, figure] = key.split('|');
    return range(`${label} ${shape}`, figure, values);
  });
  return { measurements, comparisons, ranges };
}

/** CPU per 100k frames of every streaming measurement, one note line each. */
export function streamCpuNotes(measurements: Measurement[]): string[] {
  return measurements.filter((m) => m.target.includes(' stream ')).map((m) =>
    `cpu per 100k frames, ${m.target}: ${(m.cpuMsPerRequest * 100).toFixed(2)} s ` +
    `(${Math.round(m.rps)} frames/s)`
  );
}
