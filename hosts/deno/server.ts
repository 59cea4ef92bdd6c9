/**
 * The Deno host: Deno.serve over the core. SPEC "Startup behaviour and hosts".
 * Health first, then the proxy; an unclaimed path answers 404 with the
 * security headers.
 */
import type { SvcProxy } from '../../src/proxy.ts';
import { adaptWebSocket } from '../../src/ws/mod.ts';
import { plainResponse } from '../../src/http/responses.ts';

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
    if (new URL(request.url).pathname === proxy.config.healthPath) {
      return proxy.health(request);
    }
    if (request.headers.get('upgrade')?.toLowerCase() === 'websocket') {
      const decision = proxy.upgrade(request, conn);
      if (decision.kind === 'refuse') return decision.response;
      if (decision.kind === 'accept') {
        const { socket, response } = Deno.upgradeWebSocket(request, {
          protocol: decision.protocol,
          // Deno pings the browser and closes a socket that stops answering (seconds)
          idleTimeout: 30,
        });
        proxy.acceptSocket(adaptWebSocket(socket));
        return response;
      }
      return plainResponse(404, 'Not Found');
    }
    return await proxy.handle(request, conn) ?? plainResponse(404, 'Not Found');
  };
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
