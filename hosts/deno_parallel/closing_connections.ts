/**
 * Nothing is served on a connection after its 413: SPEC "Size and capacity" (the 413 is sent with
 * `connection: close`; no further request on that connection reaches a route). Deno.serve keeps an
 * HTTP/1.1 connection open whatever the answer's `connection` header says, and reads the next
 * pipelined request; it gives a handler the peer's address and port, but no socket to end. So the
 * Deno.serve handler (serve_handler.ts, `deno task serve:parallel`) remembers the connections it
 * answered with `connection: close` by that address and port, and answers whatever still arrives on
 * one with a response whose body fails at once: Deno then ends the connection, and the request
 * reaches no route.
 *
 * Bounded: at most `max` connections (the oldest forgotten first), each for `ttlMs` (a client's
 * port is not reused while it waits out TIME_WAIT, 60 s on Linux, so an entry that outlives its
 * connection does not meet another one). DEFAULTS.closingConnectionsMax, closingConnectionMs.
 */
import { DEFAULTS } from '../../src/host_api.ts';

/** The connections answered with `connection: close`, by peer `address:port`. */
export interface ClosingConnections {
  /** Remembers `key` (a peer `address:port`) as closing. */
  add(key: string): void;
  /** Whether `key` is a closing connection (forgets it: the drop ends that connection). */
  take(key: string): boolean;
  /** How many are remembered. */
  readonly size: number;
}

/** The key of the connection a request arrived on, or null when its address has no port. */
export function connectionKey(info: Deno.ServeHandlerInfo): string | null {
  const addr = info.remoteAddr as Partial<Deno.NetAddr>;
  return typeof addr.port === 'number' ? `${addr.hostname}:${addr.port}` : null;
}

/** A tracker holding at most `max` connections, each for `ttlMs` (ms); `now` reads the clock. */
export function createClosingConnections(
  max: number = DEFAULTS.closingConnectionsMax,
  ttlMs: number = DEFAULTS.closingConnectionMs,
  now: () => number = Date.now,
): ClosingConnections {
  const until = new Map<string, number>();
  return {
    add(key) {
      until.delete(key);
      while (until.size >= max) until.delete(until.keys().next().value!);
      until.set(key, now() + ttlMs);
    },
    take(key) {
      const expires = until.get(key);
      if (expires === undefined) return false;
      until.delete(key);
      return expires > now();
    },
    get size() {
      return until.size;
    },
  };
}

/**
 * Thrown into the body of a dropped answer; Deno.serve's onError (serve_handler.ts) knows it and
 * stays quiet.
 */
export class ConnectionDropped extends Error {
  constructor() {
    super('svc-gateway: a request after a connection: close answer was dropped');
    this.name = 'ConnectionDropped';
  }
}

/**
 * The answer to a request on a closing connection: a head whose body fails before its first
 * byte, so Deno ends the connection; the caller reads a cut answer, never a route's.
 */
export function droppedAnswer(): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.error(new ConnectionDropped());
    },
  });
  return new Response(body, {
    status: 400,
    headers: { 'content-length': '11', connection: 'close' },
  });
}
