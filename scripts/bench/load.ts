/**
 * The load generator of `deno task bench`: autocannon (npm, pinned in deno.json) driving a fixed
 * number of keep-alive connections, one request in flight on each (no pipelining), for a fixed
 * time. autocannon's own latency histogram keeps whole milliseconds, too coarse for a gateway
 * that adds a fraction of one, so every response time (float ms from its `response` event) is
 * kept here and the percentiles are computed from those.
 */
import autocannon from 'autocannon';

/** One load run: POST `body` to `url` on `connections` connections for `durationS` seconds. */
export interface LoadSpec {
  url: string;
  body: string;
  /** Sent with every request (content-type is always application/json). */
  headers?: Record<string, string>;
  /** Concurrent keep-alive connections, each with one request in flight. */
  connections: number;
  /** Seconds. */
  durationS: number;
}

/** What one load run measured. Latencies are milliseconds, of 2xx answers only. */
export interface LoadResult {
  /** Answers received (any status). */
  requests: number;
  /** Answers with a status outside 2xx. */
  non2xx: number;
  /** Answers per HTTP status, e.g. { '200': 9000, '429': 12 }. */
  statuses: Record<string, number>;
  /** Connection errors and timeouts. */
  errors: number;
  /** Seconds the run lasted, as autocannon measured it. */
  durationS: number;
  /** requests / durationS. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
}

/** The subset of autocannon's result this module reads. */
interface AutocannonResult {
  requests: { total: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  duration: number;
  statusCodeStats: Record<string, { count: number }>;
}

/** The subset of an autocannon instance this module uses. */
interface AutocannonInstance extends PromiseLike<AutocannonResult> {
  on(
    event: 'response',
    listener: (client: unknown, status: number, bytes: number, ms: number) => void,
  ): void;
}

type Autocannon = (options: Record<string, unknown>) => AutocannonInstance;

/** The `q` quantile (0..1) of sorted values (nearest rank); NaN when empty. */
export function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

/** Runs one load (see LoadSpec); resolves when autocannon finished. */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  let times = new Float64Array(1 << 16);
  let count = 0;
  const instance = (autocannon as Autocannon)({
    url: spec.url,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...spec.headers },
    body: spec.body,
    connections: spec.connections,
    pipelining: 1,
    duration: spec.durationS,
    timeout: 10,
  });
  instance.on('response', (_client, status, _bytes, ms) => {
    if (status < 200 || status > 299) return;
    if (count === times.length) {
      const grown = new Float64Array(times.length * 2);
      grown.set(times);
      times = grown;
    }
    times[count++] = ms;
  });
  const result = await instance;
  const sorted = times.slice(0, count).sort();
  let sum = 0;
  for (const t of sorted) sum += t;
  return {
    requests: result.requests.total,
    non2xx: result.non2xx,
    statuses: Object.fromEntries(
      Object.entries(result.statusCodeStats).map(([status, { count }]) => [status, count]),
    ),
    errors: result.errors + result.timeouts,
    durationS: result.duration,
    rps: result.requests.total / result.duration,
    p50Ms: quantile(sorted, 0.5),
    p99Ms: quantile(sorted, 0.99),
    meanMs: count === 0 ? NaN : sum / count,
  };
}
