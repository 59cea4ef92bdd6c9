/**
 * Shared steps of the scripts that set relay floors side by side outside `deno task bench`
 * (deno_legs.ts, deno_browser_legs.ts): the flood upstream and its direct target, the streams in
 * interleaved rounds printed as min..max (median), and memory per idle socket on fresh floors
 * each round. Figures as the relay scenario measures them (relay_streams.ts, idle_sockets.ts).
 */
import { type ChildProcess, denoRun, startChildProcess } from '../host_process.ts';
import { idleSocketMemory } from './idle_sockets.ts';
import { IDLE_SOCKETS } from './scenarios/relay.ts';
import { STREAM_ROUNDS, streamRounds } from './relay_streams.ts';
import type { SocketTarget } from './socket_load.ts';

/** The connection_init payload every target gets: the flood upstream checks no token. */
export const INIT = { authToken: 'unchecked' };

/** The WebSocket URL of the GraphQL path of a server at `url` (http or ws). */
export const wsUrl = (url: string) => `${url.replace(/^http/, 'ws')}/graphql`;

/** Starts the flood upstream (pushed onto `started`); its ws URL and the direct target. */
export async function startFlood(
  started: ChildProcess[],
): Promise<{ upstream: string; direct: SocketTarget }> {
  const flood = await startChildProcess({
    command: denoRun('scripts/bench/flood_upstream.ts'),
    env: { PORT: '0', HOST: '127.0.0.1' },
    ready: /^(http:\/\/\S+)$/,
  });
  started.push(flood);
  const upstream = wsUrl(flood.url);
  return {
    upstream,
    direct: { label: 'direct', url: upstream, initPayload: INIT, pid: flood.pid },
  };
}

/** Streams through every target in interleaved rounds of `seconds`; prints each figure's range. */
export async function printStreams(targets: SocketTarget[], seconds: number): Promise<void> {
  const { ranges } = await streamRounds(targets, seconds, 0.5);
  console.log(`streams, ${STREAM_ROUNDS} interleaved rounds: min..max (median)`);
  for (const r of ranges.filter((r) => !r.subject.startsWith('direct'))) {
    const f = (n: number) => n.toFixed(2);
    console.log(`${r.subject}, ${r.figure}: ${f(r.min)}..${f(r.max)} (${f(r.median)})`);
  }
}

/**
 * Memory per idle socket for `rounds` rounds, each on targets `start` brings up fresh (its
 * processes pushed onto the array it is given, stopped after the round).
 */
export async function printIdleMemory(
  rounds: number,
  start: (fresh: ChildProcess[]) => Promise<SocketTarget[]>,
): Promise<void> {
  for (let round = 1; round <= rounds; round++) {
    const fresh: ChildProcess[] = [];
    try {
      for (const t of await start(fresh)) {
        const m = await idleSocketMemory({ ...IDLE_SOCKETS, ...t });
        const kib = (m.perSocketBytes / 1024).toFixed(1);
        console.log(`memory per idle socket, ${t.label} r${round}: ${kib} KiB`);
      }
    } finally {
      for (const p of fresh) await p.stop();
    }
  }
}
