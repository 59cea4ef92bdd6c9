/**
 * The Node server host: node:http, health first, then the proxy; upgrades on
 * the relay path go to the relay through `ws` (noServer), others are
 * destroyed. SPEC "Startup behaviour and hosts" (Node server).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { DEFAULTS } from '../../src/config/defaults.ts';
import { healthResponse, plainResponse } from '../../src/http/responses.ts';
import type { SvcProxy } from '../../src/proxy.ts';
import { adaptWsSocket } from '../../src/ws/mod.ts';
import { sendResponse, toRequest, toUpgradeRequest } from './bridge.ts';

/** Writes a plain HTTP answer on a raw upgrade socket, then ends it. */
async function refuseUpgrade(socket: Duplex, response: Response): Promise<void> {
  const body = await response.text();
  const lines = [
    `HTTP/1.1 ${response.status} ${response.status === 403 ? 'Forbidden' : 'Service Unavailable'}`,
  ];
  response.headers.forEach((value, name) => lines.push(`${name}: ${value}`));
  lines.push(`content-length: ${Buffer.byteLength(body)}`, 'connection: close', '', body);
  socket.end(lines.join('\r\n'));
}

function originOf(req: IncomingMessage, port: number): string {
  return `http://${req.headers.host ?? `127.0.0.1:${port}`}`;
}

/** Builds the http.Server for `proxy` (not yet listening). */
export function createNodeServer(proxy: SvcProxy): Server {
  // ws's own ceiling sits above the relay's 1 MiB browser frame, so the relay answers 4400 first
  const wss = new WebSocketServer({ noServer: true, maxPayload: 2 * DEFAULTS.browserFrameBytes });
  let port = 0;
  const server = createServer(async (req, res) => {
    port ||= (server.address() as { port: number } | null)?.port ?? 0;
    try {
      const request = await toRequest(req, originOf(req, port));
      const path = new URL(request.url).pathname;
      const response = path === proxy.config.healthPath
        ? healthResponse(proxy.config.problems.length === 0)
        : await proxy.handle(request, { remoteAddress: req.socket.remoteAddress }) ??
          plainResponse(404, 'Not Found');
      await sendResponse(req, res, response);
    } catch {
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    }
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const port = (server.address() as { port: number } | null)?.port ?? 0;
    const request = toUpgradeRequest(req, originOf(req, port));
    const decision = proxy.upgrade(request, { remoteAddress: req.socket.remoteAddress });
    if (decision.kind === 'unclaimed') return socket.destroy();
    if (decision.kind === 'refuse') return void refuseUpgrade(socket, decision.response);
    wss.handleUpgrade(req, socket, head, (ws) => proxy.acceptSocket(adaptWsSocket(ws)));
  });
  server.on('close', () => {
    wss.close();
    void proxy.close();
  });
  return server;
}
