/**
 * Load over graphql-transport-ws for the relay scenario: operations over open
 * sockets with the real graphql-ws client (each operation is a subscribe, its
 * next and its complete: three relayed frames), and idle sockets for the
 * memory figure. Latencies are recorded per operation, ms.
 */
import { type Client, createClient } from 'graphql-ws';
import { quantile } from './load.ts';
import { cpuTimeMs } from './proc.ts';
import type { Measurement } from './scenario.ts';

/** What one socket run sends and where. */
export interface SocketLoadSpec {
  label: string;
  /** ws://.../graphql (direct) or ws://.../svc/graphql (gateway). */
  url: string;
  /** connection_init payload (the direct baseline carries the sandbox's authToken). */
  initPayload: Record<string, unknown>;
  /** The operation each subscribe runs (a query answered with one next). */
  payload: { query: string; variables?: Record<string, unknown> };
  /** Operations in flight at once over one socket. */
  inFlight: number;
  /** The process whose CPU time is read around the run. */
  pid: number;
}

function open(url: string, initPayload: Record<string, unknown>): Client {
  return createClient({
    url,
    webSocketImpl: WebSocket,
    connectionParams: initPayload,
    retryAttempts: 0,
    lazy: false,
  });
}

function once(client: Client, payload: SocketLoadSpec['payload']): Promise<void> {
  return new Promise((resolve, reject) => {
    let got = false;
    client.subscribe(payload, {
      next: () => void (got = true),
      error: reject,
      complete: () => (got ? resolve() : reject(new Error('completed without a result'))),
    });
  });
}

/** Runs operations for `durationS` seconds after `warmupS`, `inFlight` at a time. */
export async function runSocketLoad(
  spec: SocketLoadSpec,
  durationS: number,
  warmupS: number,
): Promise<Measurement> {
  const client = open(spec.url, spec.initPayload);
  try {
    await once(client, spec.payload); // must answer before anything is measured
    await drive(client, spec, warmupS, null);
    const latencies: number[] = [];
    const cpuBefore = await cpuTimeMs(spec.pid);
    const started = performance.now();
    const errors = await drive(client, spec, durationS, latencies);
    const elapsedS = (performance.now() - started) / 1000;
    const cpu = (await cpuTimeMs(spec.pid)) - cpuBefore;
    const sorted = Float64Array.from(latencies).sort();
    const mean = latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length);
    return {
      target: spec.label,
      connections: spec.inFlight,
      requests: latencies.length,
      non2xx: 0,
      statuses: {},
      errors,
      durationS: elapsedS,
      rps: latencies.length / elapsedS,
      p50Ms: quantile(sorted, 0.5),
      p99Ms: quantile(sorted, 0.99),
      meanMs: mean,
      cpuMsPerRequest: cpu / Math.max(1, latencies.length),
    };
  } finally {
    await client.dispose();
  }
}

async function drive(
  client: Client,
  spec: SocketLoadSpec,
  seconds: number,
  latencies: number[] | null,
): Promise<number> {
  const end = performance.now() + seconds * 1000;
  let errors = 0;
  const worker = async () => {
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
  await Promise.all(Array.from({ length: spec.inFlight }, worker));
  return errors;
}

/**
 * Opens `count` sockets (in batches of `batch`, each acknowledged before the
 * next batch) and leaves them idle; returns a function closing them all.
 */
export async function openIdleSockets(
  url: string,
  initPayload: Record<string, unknown>,
  count: number,
  batch = 16,
): Promise<() => Promise<void>> {
  const sockets: WebSocket[] = [];
  for (let i = 0; i < count; i += batch) {
    const opened = Array.from(
      { length: Math.min(batch, count - i) },
      () => ackedSocket(url, initPayload),
    );
    sockets.push(...await Promise.all(opened));
  }
  return async () => {
    await Promise.all(sockets.map((ws) =>
      new Promise<void>((resolve) => {
        if (ws.readyState === WebSocket.CLOSED) return resolve();
        ws.addEventListener('close', () => resolve(), { once: true });
        ws.close(1000, 'done');
      })
    ));
  };
}

function ackedSocket(url: string, initPayload: Record<string, unknown>): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, 'graphql-transport-ws');
    ws.addEventListener(
      'open',
      () => ws.send(JSON.stringify({ type: 'connection_init', payload: initPayload })),
    );
    ws.addEventListener('message', (event) => {
      if (JSON.parse(String(event.data)).type === 'connection_ack') resolve(ws);
    });
    ws.addEventListener(
      'close',
      (event) => reject(new Error(`socket closed ${event.code} ${event.reason}`)),
    );
  });
}
