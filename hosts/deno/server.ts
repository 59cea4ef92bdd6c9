/**
 * The Deno host: Deno.serve over the core. SPEC "Startup behaviour and hosts".
 * Health first, then the proxy; an unclaimed path answers 404 with the
 * security headers.
 */
import type { SvcProxy } from '../../src/proxy.ts';
import { adaptWebSocket } from '../../src/ws/mod.ts';
import { plainResponse } from '../../src/http/responses.ts';
import { mayPreread, withPrereadBody } from '../../src/http/preread.ts';
import { plainHeadersFor, responseFor } from './connection_close.ts';

/** A running Deno host. */
export interface DenoHost {
  /** e.g. http://127.0.0.1:8000 */
  url: string;
  port: number;
  shutdown(): Promise<void>;
}

/** The request handler a Deno.serve call takes. */
export function denoHandler(proxy: SvcProxy) {
  return async (request: Request, info: Deno.ServeHandlerInfo): Promise<Response> => {
    const conn = { remoteAddress: (info.remoteAddr as Deno.NetAddr).hostname };
    if (rawPath(request.url) === proxy.config.healthPath) {
      return proxy.health(request);
    }
    if (request.headers.get('upgrade')?.toLowerCase() === 'websocket') {
      const decision = proxy.upgrade(request, conn);
      if (decision.kind === 'refuse') return decision.response;
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
    if (request.method === 'POST' && rawPath(request.url) === proxy.config.httpPath) {
      // the common path (docs/benchmarks.md "The gateway's own cost"): a small body read whole
      // (Deno's fast path, not the stream), the core's PlainAnswer, no Headers object to fill
      if (mayPreread(request.headers.get('content-length'))) {
        const body = await request.arrayBuffer().catch(() => null);
        // the caller went away mid-body (docs/operations.md "Faults"): nobody reads an answer,
        // nothing is logged
        if (body === null) return plainResponse(400, 'Bad Request');
        withPrereadBody(request, new Uint8Array(body));
      }
      const answer = await proxy.handleGraphql(request, conn);
      const headers = plainHeadersFor(request, answer.headers);
      return new Response(answer.body, { status: answer.status, headers });
    }
    const response = await proxy.handle(request, conn);
    return response === null ? plainResponse(404, 'Not Found') : responseFor(request, response);
  };
}

/**
 * The browser leg's keepalive (docs/operations.md "Slow and vanished peers on the relay") as Deno's
 * `idleTimeout`, in seconds. Deno pings a browser silent for half of it and closes (1001) one that
 * sent nothing in the other half, so the sum of the configured silence and pong wait
 * (socketPingIntervalMs + socketPongTimeoutMs, WS_PING_INTERVAL_MS + WS_PONG_TIMEOUT_MS) bounds how
 * long a vanished browser holds its slots, as on the `ws` legs. (A browser that stopped reading
 * with full buffers is not reached by the ping; flow control's stall close handles it,
 * src/ws/flow.ts.)
 */
export function browserIdleTimeoutS(proxy: SvcProxy): number {
  return (proxy.config.socketPingIntervalMs + proxy.config.socketPongTimeoutMs) / 1000;
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

/** Serves `proxy` on host:port; resolves once listening. */
export function serveDeno(proxy: SvcProxy, host: string, port: number): Promise<DenoHost> {
  return new Promise((resolve) => {
    const server = Deno.serve({
      hostname: host,
      port,
      onListen: ({ port: bound }) => {
        const shown = host.includes(':') ? `[${host}]` : host;
        resolve({
          url: `http://${shown}:${bound}`,
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
