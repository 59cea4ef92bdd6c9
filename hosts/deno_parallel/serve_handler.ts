/**
 * The Deno host's Deno.serve handler, for `deno task serve:parallel` (parallel.ts: `deno serve
 * --parallel` takes a fetch handler) over the core. SPEC "Startup behaviour and hosts".
 * `deno task serve` runs node:http and `ws` instead (server.ts; docs/benchmarks.md "The Deno
 * host's browser leg"). Health first, then the proxy; an unclaimed path answers 404 with the
 * security headers. A request with two Host lines never reaches the handler: Deno.serve answers
 * it 400 Bad Request itself (RFC 9112 section 3.2).
 */
import {
  adaptWebSocket,
  checkHost,
  type ConnInfo,
  mayPreread,
  parseHost,
  plainResponse,
  refusalResponse,
  type SvcProxy,
  toResponse,
} from '../../src/host_api.ts';
import type { DenoHost } from '../deno/server.ts';
import { listenUrl } from '../env.ts';
import { requestCloses, responseFor } from './connection_close.ts';
import {
  ConnectionDropped,
  connectionKey,
  createClosingConnections,
  droppedAnswer,
} from './closing_connections.ts';

/**
 * The request handler a Deno.serve call takes. `closing` remembers the connections answered with
 * `connection: close`; a request still arriving on one is dropped (closing_connections.ts).
 */
export function denoHandler(proxy: SvcProxy, closing = createClosingConnections()) {
  /** An answer said `connection: close`: unless Deno closes anyway (the request asked), remember. */
  const closes = (request: Request, info: Deno.ServeHandlerInfo) => {
    const key = connectionKey(info);
    if (key !== null && !requestCloses(request)) closing.add(key);
  };
  return async (request: Request, info: Deno.ServeHandlerInfo): Promise<Response> => {
    if (closing.size > 0) {
      const key = connectionKey(info);
      if (key !== null && closing.take(key)) return droppedAnswer();
    }
    const conn = { remoteAddress: (info.remoteAddr as Deno.NetAddr).hostname };
    const upgrade = request.headers.get('upgrade')?.toLowerCase() === 'websocket';
    // before any path is read: with a Host that is no host, request.url's path is not the one sent
    if (!hostIsHost(request.headers.get('host'))) return hostIsNoHost(proxy, request, upgrade);
    if (rawPath(request.url) === proxy.config.healthPath) {
      return proxy.health(request);
    }
    if (upgrade) {
      const decision = proxy.upgrade(request, conn);
      if (decision.kind === 'refuse') return toResponse(decision.answer);
      if (decision.kind === 'accept') {
        const { socket, response } = Deno.upgradeWebSocket(request, {
          protocol: decision.protocol,
          idleTimeout: browserIdleTimeoutS(proxy),
        });
        proxy.acceptSocket(adaptWebSocket(socket));
        return response;
      }
      return plainResponse(404, 'Not Found');
    }
    // the common path (docs/benchmarks.md "The gateway's own cost"): a small GraphQL body read
    // whole (Deno's fast path, not the stream), the core's text answer, no Headers object to fill;
    // read ahead only with room in the memory budget, held until it is answered
    // (src/http/preread.ts), else left to the core's read
    const graphql = request.method === 'POST' && rawPath(request.url) === proxy.config.httpPath;
    const length = graphql ? request.headers.get('content-length') : null;
    const readAhead = mayPreread(length) ? proxy.readAhead(Number(length)) : null;
    try {
      let entry: ConnInfo = conn;
      if (readAhead) {
        const body = await request.arrayBuffer().catch(() => null);
        // the caller went away mid-body (docs/operations.md "Faults"): nobody reads an answer,
        // nothing is logged
        if (body === null) return plainResponse(400, 'Bad Request');
        entry = { ...conn, readAhead: { bytes: new Uint8Array(body), counted: true } };
      }
      const answer = await proxy.serve(request, entry);
      if (answer === null) return plainResponse(404, 'Not Found');
      if (answer.headers.connection !== undefined) closes(request, info);
      return responseFor(request, answer);
    } finally {
      readAhead?.();
    }
  };
}

/**
 * Whether `request.url` is the Host and the request target as sent: Deno.serve builds the URL by
 * joining the Host header and the target, so a Host that is no host (`a/b?`, `[::1]junk`, `a b`)
 * changes the path the core would route, or leaves the URL unparseable. No Host: Deno uses its
 * own address, and the core's Host check refuses the request where it applies.
 */
function hostIsHost(host: string | null): boolean {
  return host === null || parseHost(host) !== null;
}

/**
 * The answer to a request whose Host is no host (`hostIsHost`), whatever its path (health
 * included: the path Deno gives is not the one sent): where the Host
 * check applies (SPEC "Checks before any route" 1) that check's refusal (403 ProxyHostForbidden;
 * an upgrade's plain 403); where it does not, 400 Bad Request.
 */
function hostIsNoHost(proxy: SvcProxy, request: Request, upgrade: boolean): Response {
  const refused = checkHost(proxy.config, request);
  if (refused === null) return plainResponse(400, 'Bad Request');
  return upgrade ? plainResponse(403, 'Forbidden') : refusalResponse(refused);
}

/**
 * The browser leg's keepalive (docs/operations.md "Slow and vanished peers on the relay") as Deno's
 * `idleTimeout`, in seconds. Deno pings a browser silent for half of it and closes (1001) one that
 * sent nothing in the other half, so the sum of the configured silence and pong wait
 * (wsPingIntervalMs + wsPongTimeoutMs, WS_PING_INTERVAL_MS + WS_PONG_TIMEOUT_MS) bounds how
 * long a vanished browser holds its slots, as on the `ws` legs. (A browser that stopped reading
 * with full buffers is not reached by the ping; flow control's stall close handles it,
 * src/ws/flow.ts.)
 */
export function browserIdleTimeoutS(proxy: SvcProxy): number {
  return (proxy.config.wsPingIntervalMs + proxy.config.wsPongTimeoutMs) / 1000;
}

/**
 * The path of an absolute URL as sent (no query), without parsing it. Compared only for
 * equality with the configured GraphQL path, which is already normal, so a path that needs
 * normalising (dot segments, escapes) never equals it and goes through `handle`, which parses.
 */
function rawPath(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start === -1) return '/';
  const query = url.indexOf('?', start);
  const hash = url.indexOf('#', start);
  const end = Math.min(query === -1 ? url.length : query, hash === -1 ? url.length : hash);
  return url.slice(start, end);
}

/** Deno.serve's onError: a dropped connection (closing_connections.ts) is expected, not logged. */
function quietDrop(error: unknown): Response {
  if (!(error instanceof ConnectionDropped)) console.error(error);
  return plainResponse(500, 'Internal Server Error');
}

/**
 * Serves `proxy` with Deno.serve and `denoHandler` on host:port, in this process; resolves once
 * listening. What `deno task serve:parallel` runs in each worker, for tests and the bench.
 */
export function serveWithDenoServe(proxy: SvcProxy, host: string, port: number): Promise<DenoHost> {
  return new Promise((resolve) => {
    const server = Deno.serve({
      hostname: host,
      port,
      onError: quietDrop,
      onListen: ({ port: bound }) => {
        resolve({
          url: listenUrl(host, bound),
          port: bound,
          shutdown: async () => {
            await proxy.close();
            await server.shutdown();
          },
        });
      },
    }, denoHandler(proxy));
  });
}
