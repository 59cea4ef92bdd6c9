/**
 * Round trips over graphql-transport-ws for the relay scenario, with the real graphql-ws client
 * (`createClient`, `webSocketImpl: WebSocket`): `sockets` open sockets, `inFlight` operations
 * at a time on each. One operation is a subscribe of a query, its one `next` and its `complete`
 * (three relayed frames). Every operation's latency is kept (float ms), so p50/p99 come from all
 * of them, as in load.ts.
 */
import { type Client, createClient } from 'graphql-ws';
import { quantile } from './load.ts';
import { cpuTimeMs } from './proc.ts';
import type { Measurement } from './scenario.ts';

/** Where a socket goes and what its connection_init carries. */
export interface SocketTarget {
  /** Names the row (e.g. 'direct', 'deno 16x1'). */
  label: string;
  /** ws://.../graphql (direct) or ws://.../svc/graphql (gateway). */
  url: string;
  /** connection_init payload (the direct baseline carries the sandbox's authToken). */
  initPayload: Record<string, unknown>;
  /** The process whose CPU time is read around the run (the server measured). */
  pid: number;
}

/** A GraphQL request sent in a subscribe frame. */
export interface SocketPayload {
  query: string;
  variables?: Record<string, unknown>;
}

/** What one round-trip run sends and where. */
export interface SocketLoadSpec extends SocketTarget {
  /** The operation each subscribe runs (a query or mutation: answered with one next). */
  payload: SocketPayload;
  /** Sockets open at once (one graphql-ws client each). */
  sockets: number;
  /** Operations in flight at once on each socket. */
  inFlight: number;
}

/**
 * A graphql-ws client that connects at once (`lazy: false`) and never retries, so a refused
 * socket shows as an error of the next subscribe instead of a silent reconnect (and is not also
 * printed: `onNonLazyError` is silent).
 */
export function openClient(url: string, initPayload: Record<string, unknown>): Client {
  return createClient({
    url,
    webSocketImpl: WebSocket,
    connectionParams: initPayload,
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => {},
  });
}

/** One operation: resolves on `complete` after at least one `next`; rejects on `error`. */
function once(client: Client, payload: SocketPayload): Promise<void> {
  return new Promise((resolve, reject) => {
    let got = false;
    client.subscribe(payload, {
      next: () => void (got = true),
      error: reject,
      complete: () => (got ? resolve() : reject(new Error('completed without a result'))),
    });
  });
}

/**
 * Opens the sockets, checks each answers one operation (throws otherwise), runs a discarded
 * warm-up of `warmupS` seconds, then measures `durationS` seconds framed by two CPU readings of
 * `spec.pid`. `requests` and `rps` count operations; `connections` is sockets × inFlight;
 * `errors` counts operations answered with an error. Closes every socket before returning.
 */
export async function runSocketLoad(
  spec: SocketLoadSpec,
  durationS: number,
  warmupS: number,
): Promise<Measurement> {
  const clients = Array.from(
    { length: spec.sockets },
    () => openClient(spec.url, spec.initPayload),
  );
  try {
    await Promise.all(clients.map((client) => once(client, spec.payload)));
    if (warmupS > 0) await drive(clients, spec, warmupS, null);
    const latencies: number[] = [];
    const cpuBefore = await cpuTimeMs(spec.pid);
    const started = performance.now();
    const errors = await drive(clients, spec, durationS, latencies);
    const elapsedS = (performance.now() - started) / 1000;
    const cpu = (await cpuTimeMs(spec.pid)) - cpuBefore;
    const sorted = Float64Array.from(latencies).sort();
    const mean = latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length);
    return {
      target: spec.label,
      connections: spec.sockets * spec.inFlight,
      requests: latencies.length,
      non2xx: 0,
      statuses: {},
      errors,
      durationS: elapsedS,
      rps: latencies.length / elapsedS,
      p50Ms: quantile(sorted, 0.5),
      p99Ms: quantile(sorted, 0.99),
      meanMs: latencies.length === 0 ? NaN : mean,
      cpuMsPerRequest: latencies.length === 0 ? NaN : cpu / latencies.length,
    };
  } finally {
    await Promise.all(clients.map((client) => client.dispose()));
  }
}

/** Runs `inFlight` workers per socket until `seconds` have passed; returns the errors seen. */
async function drive(
  clients: Client[],
  spec: SocketLoadSpec,
  seconds: number,
  latencies: number[] | null,
): Promise<number> {
  const end = performance.now() + seconds * 1000;
  let errors = 0;
  const worker = async (client: Client) => {
    while (performance.now() < end) {
      const t0 = performance.now();
      try {
        await once(client, spec.payload);
        latencies?.push(performance.now() - t0);
      } catch {
        errors++;
      }
    }
  };
  const workers = clients.flatMap((client) =>
    Array.from({ length: spec.inFlight }, () => worker(client))
  );
  await Promise.all(workers);
  return errors;
}
