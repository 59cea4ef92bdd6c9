/**
 * The Deno host's browser leg, measured on relay floors side by side (docs/benchmarks.md "The
 * Deno host's browser leg"), each `pass` and `plain`, against the flood upstream:
 *
 * - `deno`: the Deno floor (floors/null_relay.ts): `Deno.upgradeWebSocket`, the `ws` client
 *   upstream (the Deno host's legs);
 * - `node-legs`: the Node floor (floors/null_relay_node.mjs, unchanged) run on Deno: a `ws`
 *   server on node:http, the `ws` client upstream, `ws` writing each frame itself;
 * - `node-turn`: the same legs on Deno with one write per turn toward the browser
 *   (floors/null_relay_turn.ts, src/ws/turn_batch.ts);
 * - `node-on-node`: the Node floor on Node, for reference.
 *
 * With the relay scenario's pieces: streams (relay_streams.ts: small and 1 KiB frames, 1x1 and
 * 16x8, interleaved rounds: frames/s x direct and CPU s per 100k frames, printed as min..max
 * (median)), then memory per idle socket (idle_sockets.ts), a fresh floor per target and round.
 *
 * Not part of `deno task bench`: `deno run --allow-all scripts/bench/deno_browser_legs.ts
 * [--duration <s>] [--memory-rounds <n>] [--floors deno,node-turn]` (default: every floor, 2
 * memory rounds; about 9 minutes). Check that no other benchmark or test run shares the
 * machine first.
 */
import { parseArgs } from 'node:util';
import type { ChildProcess } from '../host_process.ts';
import { floorOnDeno, type RelayFloorMode, startNullRelay } from './floors/mod.ts';
import { INIT, printIdleMemory, printStreams, startFlood, wsUrl } from './floor_compare.ts';
import type { SocketTarget } from './socket_load.ts';

const MODES: RelayFloorMode[] = ['pass', 'plain'];

/** The floors compared: label → how to start one on `upstream` in `mode`. */
const FLOORS: Record<string, (upstream: string, mode: RelayFloorMode) => Promise<ChildProcess>> = {
  'deno': (upstream, mode) => startNullRelay('deno', upstream, mode),
  'node-legs': (upstream, mode) => floorOnDeno('null_relay_node.mjs', upstream, mode),
  'node-turn': (upstream, mode) => floorOnDeno('null_relay_turn.ts', upstream, mode),
  'node-on-node': (upstream, mode) => startNullRelay('node', upstream, mode),
};

/** Starts every floor in both modes; labelled `<floor> <mode>`. */
async function floors(
  upstream: string,
  names: string[],
  started: ChildProcess[],
): Promise<SocketTarget[]> {
  const targets: SocketTarget[] = [];
  for (const mode of MODES) {
    for (const name of names) {
      const start = FLOORS[name];
      if (!start) throw new Error(`no floor ${name}: ${Object.keys(FLOORS).join(', ')}`);
      const floor = await start(upstream, mode);
      started.push(floor);
      targets.push({
        label: `${name} ${mode}`,
        url: wsUrl(floor.url),
        initPayload: INIT,
        pid: floor.pid,
      });
    }
  }
  return targets;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      duration: { type: 'string', default: '2' },
      'memory-rounds': { type: 'string', default: '2' },
      floors: { type: 'string', default: Object.keys(FLOORS).join(',') },
    },
  });
  const names = values.floors.split(',');
  const started: ChildProcess[] = [];
  try {
    const { upstream, direct } = await startFlood(started);
    const targets = [direct, ...await floors(upstream, names, started)];
    await printStreams(targets, Number(values.duration));
    for (const p of started.splice(1)) await p.stop();
    await printIdleMemory(
      Number(values['memory-rounds']),
      (fresh) => floors(upstream, names, fresh),
    );
  } finally {
    for (const p of started) await p.stop();
  }
}

if (import.meta.main) await main();
