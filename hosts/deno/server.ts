/**
 * The Deno host (`deno task serve`): node:http and `ws` on the Deno runtime, the Node server's own
 * server (hosts/node_http/server.ts `createNodeServer`) over the core. SPEC "Startup behaviour and
 * hosts".
 */
import type { SvcProxy } from '../../src/host_api.ts';
import { createNodeServer, listenOn } from '../node_http/server.ts';
import { listenUrl } from '../env.ts';

/** A running Deno host. */
export interface DenoHost {
  /** e.g. http://127.0.0.1:8000 */
  url: string;
  port: number;
  /**
   * Closes the proxy (relay sockets 1001, its timers), then every connection at once, requests in
   * flight included (tests, the demo and the fault suite stop hosts this way).
   */
  shutdown(): Promise<void>;
}

/** Serves `proxy` on host:port; resolves once listening, rejects with the listen error. */
export async function serveDeno(proxy: SvcProxy, host: string, port: number): Promise<DenoHost> {
  const server = createNodeServer(proxy);
  const bound = await listenOn(server, host, port);
  return {
    url: listenUrl(host, bound),
    port: bound,
    shutdown: async () => {
      await proxy.close();
      await new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      });
    },
  };
}
