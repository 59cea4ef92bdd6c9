/**
 * Streaming throughput over graphql-transport-ws for the relay scenario: `sockets` open sockets
 * (real graphql-ws clients), `streams` subscriptions on each, every one streaming events as fast
 * as the upstream emits them; the figure is events received per second. There is no per-event
 * latency (events carry no send time), so p50/p99/mean are NaN.
 */
import { type Client, createClient } from 'graphql-ws';
import { WebSocket as WsClient } from 'ws';
import { cpuTimeMs } from './proc.ts';
import type { Measurement } from './scenario.ts';
import type { SocketPayload, SocketTarget } from './socket_load.ts';

/**
 * A graphql-ws client on the `ws` package: it reads its TCP socket only as fast as it handles
 * the frames, so an upstream that streams as fast as its socket drains (the relay scenario's
 * flood upstream) is paced by this client. Deno's WebSocket client reads ahead without bound, so
 * the bench process would grow and fall behind (docs/benchmarks.md "What this machine can and
 * cannot show").
 */
function openClient(url: string, initPayload: Record<string, unknown>): Client {
  return createClient({
    url,
    webSocketImpl: WsClient,
    connectionParams: initPayload,
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => {},
  });
}

/** What one streaming run subscribes to and where. */
export interface StreamLoadSpec extends SocketTarget {
  /** A subscription whose stream outlasts the run (the upstream's stream count is large). */
  payload: SocketPayload;
  /** Sockets open at once (one graphql-ws client each). */
  sockets: number;
  /** Subscriptions open at once on each socket. */
  streams: number;
}

/** Shared tallies of every stream of a run. */
interface Tally {
  events: number;
  /** Streams that ended (error or complete) before the run was over. */
  ended: number;
}

/**
 * Subscribes once; resolves at the stream's first event (so a stream that never starts fails
 * the run), then keeps counting into `tally` until the socket is disposed.
 */
function stream(client: Client, payload: SocketPayload, tally: Tally): Promise<void> {
  return new Promise((resolve, reject) => {
    let started = false;
    client.subscribe(payload, {
      next: () => {
        tally.events++;
        if (!started) (started = true), resolve();
      },
      error: (error) => {
        tally.ended++;
        if (!started) reject(error instanceof Error ? error : new Error(JSON.stringify(error)));
      },
      complete: () => {
        tally.ended++;
        if (!started) reject(new Error('the stream completed before its first event'));
      },
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Opens the sockets and their subscriptions, waits for every stream's first event (throws when
 * one errors or completes first), lets them run `warmupS` seconds, then counts the events of
 * `durationS` seconds framed by two CPU readings of `spec.pid`. `requests` and `rps` count
 * events (next frames); `connections` is sockets × streams; `errors` counts streams that errored
 * or ended during the run (a stream must outlast it). Closes every socket before returning.
 */
export async function runStreamLoad(
  spec: StreamLoadSpec,
  durationS: number,
  warmupS: number,
): Promise<Measurement> {
  const tally: Tally = { events: 0, ended: 0 };
  const clients = Array.from(
    { length: spec.sockets },
    () => openClient(spec.url, spec.initPayload),
  );
  try {
    await Promise.all(
      clients.flatMap((client) =>
        Array.from({ length: spec.streams }, () => stream(client, spec.payload, tally))
      ),
    );
    if (warmupS > 0) await sleep(warmupS * 1000);
    const before = { ...tally };
    const cpuBefore = await cpuTimeMs(spec.pid);
    const started = performance.now();
    await sleep(durationS * 1000);
    const events = tally.events - before.events;
    const elapsedS = (performance.now() - started) / 1000;
    const cpu = (await cpuTimeMs(spec.pid)) - cpuBefore;
    return {
      target: spec.label,
      connections: spec.sockets * spec.streams,
      requests: events,
      non2xx: 0,
      statuses: {},
      errors: tally.ended - before.ended,
      durationS: elapsedS,
      rps: events / elapsedS,
      p50Ms: NaN,
      p99Ms: NaN,
      meanMs: NaN,
      cpuMsPerRequest: events === 0 ? NaN : cpu / events,
    };
  } finally {
    await Promise.all(clients.map((client) => client.dispose()));
  }
}
