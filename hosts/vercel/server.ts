/**
 * The serverless function host (Vercel's Node runtime): an http.Server whose
 * every request and upgrade first gets its path restored from `cfpath`, then
 * goes through the shared node handler. SPEC "Startup behaviour and hosts"
 * (Serverless host), "Forwarding rules" (security headers on all paths),
 * "Errors" (ProxyRefusedToServe, InvalidRequest, NotFound).
 *
 * - The environment is read once, when the server first sees a request, an upgrade or starts
 *   listening (once per cold start); the startup lines are printed then.
 * - Unclaimed path: 404 NotFound envelope. Refused configuration (REFUSING TO SERVE): health
 *   still answers, everything else 503 ProxyRefusedToServe (upgrades: plain 503).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Buffer } from 'node:buffer';
import process from 'node:process';
import type { Duplex } from 'node:stream';
import {
  createSvcProxy,
  type Env,
  plainAnswer,
  refusal,
  refusalResponse,
  type SvcProxyOptions,
} from '../../src/host_api.ts';
import { sendResponse } from '../node_http/bridge.ts';
import { createNodeHandler, refuseUpgrade, type SvcNodeHandler } from '../node_http/handler.ts';
import { readEveryHeaderLine } from '../node_http/server.ts';
import { nodeOutbound } from '../node_http/outbound.ts';
import { restorePath } from './cfpath.ts';

function answer(req: IncomingMessage, res: ServerResponse, response: Response): void {
  req.resume();
  void sendResponse(req, res, response);
}

function refusedToServe(): Response {
  return refusalResponse(
    refusal('ProxyRefusedToServe', 'This deployment refused to serve its configuration'),
  );
}

/**
 * Builds the function's http.Server over `options` and `env` (default: `process.env`, read at
 * first use). `loopbackOnly` is never set: a function is reachable.
 */
export function createVercelServer(
  options: SvcProxyOptions = {},
  env?: Env,
): Server {
  let built: SvcNodeHandler | null = null;
  const handler = (): SvcNodeHandler => {
    if (built) return built;
    const proxy = createSvcProxy(
      { ...options, ...nodeOutbound(options) },
      env ?? { ...process.env },
    );
    for (const line of proxy.startupLines) console.log(line);
    built = createNodeHandler(proxy);
    return built;
  };

  const server = createServer((req, res) => {
    const h = handler();
    const restored = restorePath(req.url ?? '/');
    if ('refused' in restored) return answer(req, res, refusalResponse(restored.refused));
    req.url = restored.url;
    const path = restored.url.split('?', 1)[0];
    if (h.proxy.config.refusal && path !== h.proxy.config.healthPath) {
      return answer(req, res, refusedToServe());
    }
    void h.handleRequest(req, res, () => {
      answer(req, res, refusalResponse(refusal('NotFound', 'No route here')));
    });
  });
  readEveryHeaderLine(server);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const h = handler();
    const restored = restorePath(req.url ?? '/');
    if ('refused' in restored) return refuseUpgrade(socket, plainAnswer(400, 'Bad Request'));
    if (h.proxy.config.refusal) {
      return refuseUpgrade(socket, plainAnswer(503, 'Service Unavailable'));
    }
    req.url = restored.url;
    if (!h.handleUpgrade(req, socket, head)) socket.destroy();
  });
  server.on('listening', () => void handler());
  server.on('close', () => void built?.close());
  return server;
}
