/**
 * The Deno floor with each upstream leg side by side (docs/benchmarks.md "The Deno host's upstream
 * leg"): `null relay deno` (floors/null_relay.ts) on the `ws` client (the Deno host's leg) and on
 * Deno's `WebSocketStream`, each `pass` and `plain`, against the flood upstream, with the relay
 * scenario's pieces:
 *
 * 1. streams (relay_streams.ts): small and 1 KiB frames, 1x1 and 16x8, interleaved rounds: per
 *    round frames/s x direct and CPU s per 100k frames, printed as min..max (median);
 * 2. round trips (socket_load.ts): a query sent as a subscribe at 1x1, 1x16 and 16x1, 2 interleaved
 *    rounds: operations/s x direct;
 * 3. memory per idle socket (idle_sockets.ts), a fresh floor per target and round;
 * 4. stalled subscribers (stalled_sockets.ts), fresh floors, `pass` only.
 *
 * Not part of `deno task bench` (the choice it informs is made; rerun it when Deno changes):
 * `deno run --allow-all scripts/bench/deno_legs.ts [--duration <s>] [--skip-stalled]`.
 * Check that no other benchmark or test run shares the machine first.
 */
import { parseArgs } from 'node:util';
import type { ChildProcess } from '../host_process.ts';
import { type RelayFloorLeg, type RelayFloorMode, startNullRelay } from './floors/mod.ts';
import { SMALL_QUERY } from './flood_upstream.ts';
import { ROUND_TRIP_SHAPES } from './scenarios/relay.ts';
import { floodPayload } from './relay_streams.ts';
import { INIT, printIdleMemory, printStreams, startFlood, wsUrl } from './floor_compare.ts';
import { runSocketLoad, type SocketTarget } from './socket_load.ts';
import { stalledNotes } from './stalled_sockets.ts';

const LEGS: RelayFloorLeg[] = ['ws', 'stream'];
const MODES: RelayFloorMode[] = ['pass', 'plain'];

/** Starts the floors of `modes` on both legs; labelled `<leg> <mode>`. */
async function floors(upstream: string, modes: RelayFloorMode[], started: ChildProcess[]) {
  const targets: SocketTarget[] = [];
  for (const mode of modes) {
    for (const leg of LEGS) {
      const floor = await startNullRelay('deno', upstream, mode, leg);
      started.push(floor);
      targets.push({
        label: `${leg} ${mode}`,
        url: wsUrl(floor.url),
        initPayload: INIT,
        pid: floor.pid,
      });
    }
  }
  return targets;
}

/** Round trips over `targets` (direct first), 2 interleaved rounds; one line a target and shape. */
async function roundTrips(targets: SocketTarget[], durationS: number): Promise<void> {
  const payload = { query: 'query RelayBench { currentUser { id } }' };
  const ratios = new Map<string, string[]>();
  for (let round = 1; round <= 2; round++) {
    for (const { sockets, inFlight } of ROUND_TRIP_SHAPES) {
      let direct = NaN;
      for (const t of targets) {
        const m = await runSocketLoad({ ...t, payload, sockets, inFlight }, durationS, 0.5);
        if (t.label === 'direct') direct = m.rps;
        const key = `${t.label} ${sockets}x${inFlight}`;
        ratios.set(key, [...ratios.get(key) ?? [], (m.rps / direct).toFixed(2)]);
      }
    }
  }
  for (const [key, values] of ratios) {
    if (!key.startsWith('direct')) console.log(`round trips ${key} x direct: ${values.join(' ')}`);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: { duration: { type: 'string', default: '2' }, 'skip-stalled': { type: 'boolean' } },
  });
  const started: ChildProcess[] = [];
  try {
    const { upstream, direct } = await startFlood(started);
    const targets = [direct, ...await floors(upstream, MODES, started)];
    await printStreams(targets, Number(values.duration));
    await roundTrips(targets, Number(values.duration));
    await printIdleMemory(3, (fresh) => floors(upstream, MODES, fresh));
    if (values['skip-stalled']) return;
    const stalled = await floors(upstream, ['pass'], started);
    for (const line of await stalledNotes(stalled, floodPayload(SMALL_QUERY))) console.log(line);
  } finally {
    for (const p of started) await p.stop();
  }
}

if (import.meta.main) await main();
