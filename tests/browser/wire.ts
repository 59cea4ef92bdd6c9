/**
 * Observing the client's attempts on the wire: arrival times of the requests that reached the
 * sandbox upstream, and a TCP listener that accepts and at once drops every connection (a real
 * network failure for fetch) while counting them.
 */
import type { Sandbox } from '../../scripts/sandbox/mod.ts';

/**
 * Records `performance.now()` (ms) each time the sandbox records a request; returns the list
 * (cleared with `.length = 0`).
 */
export function recordArrivals(sandbox: Sandbox): number[] {
  const times: number[] = [];
  const received = sandbox.received;
  const push = received.push.bind(received);
  received.push = (...items) => {
    for (const _ of items) times.push(performance.now());
    return push(...items);
  };
  return times;
}

/** Gaps between consecutive times (ms). */
export function gaps(times: number[]): number[] {
  return times.slice(1).map((t, i) => t - times[i]);
}

/** A loopback TCP listener that closes every connection at once, counting them. */
export interface DroppingListener {
  url: string;
  /** Arrival times (performance.now(), ms) of the connections. */
  connections: number[];
  close(): void;
}

/** Starts a {@link DroppingListener} on loopback `port` (default: a free one). */
export function startDroppingListener(port = 0): DroppingListener {
  const listener = Deno.listen({ hostname: '127.0.0.1', port });
  const connections: number[] = [];
  (async () => {
    for await (const conn of listener) {
      connections.push(performance.now());
      conn.close();
    }
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${listener.addr.port}`,
    connections,
    close: () => listener.close(),
  };
}
