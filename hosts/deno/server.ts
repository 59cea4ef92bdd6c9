/**
 * The Deno host (`deno task serve`): node:http and `ws` on the Deno runtime, the Node server's
 * own server (hosts/node/server.ts `createNodeServer`) over the core. SPEC "Startup behaviour and
 * hosts".
 */
import type { SvcProxy } from '../../src/proxy.ts';
import { createNodeServer } from '../node/server.ts';

/** A running Deno host. */
export interface DenoHost {
  /** e.g. http://127.0.0.1:8000 */
  url: string;
  port: number;
  shutdown(): Promise<void>;
}

/** Serves `proxy` on host:port; resolves once listening. */
export function serveDeno(proxy: SvcProxy, host: string, port: number): Promise<DenoHost> {
  const server = createNodeServer(proxy);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const bound = (server.address() as { port: number }).port;
      const shown = host.includes(':') ? `[${host}]` : host;
      resolve({
        url: `http://${shown}:${bound}`,
        port: bound,
        shutdown: async () => {
          await proxy.close();
          await new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          });
        },
      });
    });
  });
}
