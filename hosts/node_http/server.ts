/**
 * The Node server host: node:http over the shared handler (hosts/node_http/handler.ts):
 * health, then the proxy, then the host's own 404; upgrades on the relay path go
 * to the relay through `ws` (noServer), others are destroyed.
 * SPEC "Startup behaviour and hosts" (Node server).
 */
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerOptions,
  type ServerResponse,
} from 'node:http';
import { DEFAULTS, plainAnswer, type SvcProxy } from '../../src/host_api.ts';
import type { Buffer } from 'node:buffer';
import type { Duplex } from 'node:stream';
import { sendAnswer } from './bridge.ts';
import { createNodeHandler } from './handler.ts';
import { answerClientError } from './pipelined.ts';

/** The host's own 404 (security headers, no-store) for a path nothing claims. */
export function notFound(req: IncomingMessage, res: ServerResponse): void | Promise<void> {
  return sendAnswer(req, res, plainAnswer(404, 'Not Found'));
}

/**
 * The node:http timeouts of every Node server host (docs/operations.md "Faults"; the defaults
 * table): a connection that never sends its request head is closed after httpHeadersTimeoutMs
 * (408), a request whose body stalls after httpRequestTimeoutMs, an idle keep-alive connection
 * after httpKeepAliveTimeoutMs; checked every httpTimeoutCheckMs.
 */
export const NODE_SERVER_TIMEOUTS: ServerOptions = Object.freeze({
  headersTimeout: DEFAULTS.httpHeadersTimeoutMs,
  requestTimeout: DEFAULTS.httpRequestTimeoutMs,
  keepAliveTimeout: DEFAULTS.httpKeepAliveTimeoutMs,
  connectionsCheckingInterval: DEFAULTS.httpTimeoutCheckMs,
});

/**
 * Makes `server` read every header line its header-size ceiling admits (node's maxHeaderSize,
 * 16 KiB; past it the request is 431). node:http otherwise drops, without a word, every line past
 * its maxHeadersCount (2,000 on Node; about 1,000 lines on Deno's node:http), so an Origin, a
 * Fetch Metadata line or a second Host written after the filler would never be read by the
 * checks of SPEC "Checks before any route" (docs/routes.md "Header lines").
 */
export function readEveryHeaderLine(server: { maxHeadersCount: number | null }): void {
  server.maxHeadersCount = 0;
}

/**
 * A node:http server for `onRequest` with the hosts' timeouts (NODE_SERVER_TIMEOUTS), every
 * header line read (readEveryHeaderLine) and their answer to a connection's own error
 * (pipelined.ts `answerClientError`): what every Node server host (createNodeServer,
 * createSvcServer, the Deno host) listens with.
 */
export function createHostServer(
  onRequest: (req: IncomingMessage, res: ServerResponse) => void,
): Server {
  const server = createServer(NODE_SERVER_TIMEOUTS, onRequest);
  readEveryHeaderLine(server);
  server.on('clientError', answerClientError);
  return server;
}

/**
 * Binds `server` on host:port; resolves with the port bound (the one asked for, or a free one for
 * 0). Rejects with the listen error (e.g. EADDRINUSE), which is then no longer listened to.
 */
export function listenOn(server: Server, host: string, port: number): Promise<number> {
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      done((server.address() as { port: number }).port);
    });
  });
}

/** Builds the http.Server for `proxy` (not yet listening); unclaimed paths answer 404. */
export function createNodeServer(proxy: SvcProxy): Server {
  const handler = createNodeHandler(proxy);
  const server = createHostServer((req, res) => {
    void handler.handleRequest(req, res, () => void notFound(req, res));
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!handler.handleUpgrade(req, socket, head)) socket.destroy();
  });
  server.on('close', () => void handler.close());
  return server;
}
