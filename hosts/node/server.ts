/**
 * The Node server host: node:http over the shared handler (hosts/node/handler.ts):
 * health, then the proxy, then the host's own 404; upgrades on the relay path go
 * to the relay through `ws` (noServer), others are destroyed.
 * SPEC "Startup behaviour and hosts" (Node server).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Buffer } from 'node:buffer';
import type { Duplex } from 'node:stream';
import { plainResponse } from '../../src/http/responses.ts';
import type { SvcProxy } from '../../src/proxy.ts';
import { sendResponse } from './bridge.ts';
import { createNodeHandler } from './handler.ts';

/** The host's own 404 (security headers, no-store) for a path nothing claims. */
export function notFound(req: IncomingMessage, res: ServerResponse): Promise<void> {
  return sendResponse(req, res, plainResponse(404, 'Not Found'));
}

/** Builds the http.Server for `proxy` (not yet listening); unclaimed paths answer 404. */
export function createNodeServer(proxy: SvcProxy): Server {
  const handler = createNodeHandler(proxy);
  const server = createServer((req, res) => {
    void handler.handleRequest(req, res, () => void notFound(req, res));
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!handler.handleUpgrade(req, socket, head)) socket.destroy();
  });
  server.on('close', () => void handler.close());
  return server;
}
