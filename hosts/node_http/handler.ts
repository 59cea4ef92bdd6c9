/**
 * The one node:http handler every Node-flavoured host shares: the Node server
 * (hosts/node_http/server.ts), the Vite plugin (hosts/vite/) and the serverless
 * function (hosts/vercel/). SPEC "What the service does" 6 (one core, the same
 * route table on each host), "Startup behaviour and hosts".
 *
 * Per request: its turn among requests pipelined on its connection (pipelined.ts), then a
 * request with two Host lines is 400 (RFC 9112 section 3.2), then
 * health, then the proxy; a path neither claims goes to `next`
 * untouched (its body unread), so the host decides what an unclaimed path is
 * (the Node server's static build, Vite's own middleware, the function's 404
 * envelope). Per upgrade: the relay path is accepted or refused here; any other
 * path is reported unclaimed and left alone (Vite's HMR socket, the Node
 * server destroys it).
 */
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import { Buffer } from 'node:buffer';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import {
  adaptWsSocket,
  corsHeaders,
  DEFAULTS,
  mayPreread,
  parseHost,
  type PlainAnswer,
  plainAnswer,
  type SvcProxy,
} from '../../src/host_api.ts';
import { sendAnswer, toRequest } from './bridge.ts';
import { answerLean, takesLeanPath, upgradeRequest } from './lean.ts';
import { headerLines } from './raw_headers.ts';
import { responseAbortSignal } from './caller_signal.ts';
import { mayClaim, pathOf } from './gateway_paths.ts';
import { inTurn, noteAnswer, upgradeBehindAnswer } from './pipelined.ts';

/** Called for a request neither health nor the proxy claims. */
export type NextHandler = (error?: unknown) => void;

/** The shared node:http handler over one proxy. */
export interface SvcNodeHandler {
  /** The proxy it serves. */
  readonly proxy: SvcProxy;
  /**
   * Answers health, then the proxy; calls `next()` (nothing written, body unread) for a path
   * neither claims. Never rejects: a failure answers 500 (or destroys a half-sent answer).
   */
  handleRequest(req: IncomingMessage, res: ServerResponse, next: NextHandler): Promise<void>;
  /**
   * An `upgrade` event: on the relay path the socket is accepted (handed to the relay) or
   * answered with plain HTTP 403/503 (SPEC "Checks before any route" 5), and `true` is returned.
   * Any other path returns `false` with the socket untouched (the caller destroys it or lets
   * another listener, e.g. Vite's HMR, take it).
   */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Closes the relay's sockets and the proxy's timers. */
  close(): Promise<void>;
}

/** Writes a plain HTTP answer on a raw upgrade socket, then ends it (no socket ever exists). */
export function refuseUpgrade(socket: Duplex, answer: PlainAnswer): void {
  const body = answer.body ?? '';
  const lines = [`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}`];
  for (const [name, value] of Object.entries(answer.headers)) lines.push(`${name}: ${value}`);
  lines.push(`content-length: ${Buffer.byteLength(body)}`, 'connection: close', '', body);
  socket.end(lines.join('\r\n'));
}

/**
 * The origin a node request's URL is resolved against (the core reads the path, and the Host
 * header itself): the Host when it is one host (`parseHost`), else the local address, so a Host
 * that is no host never makes the URL unparseable (the core's Host check refuses it).
 */
function originOf(req: IncomingMessage): string {
  const host = req.headers.host;
  if (host !== undefined && parseHost(host) !== null) return `http://${host}`;
  return `http://127.0.0.1:${req.socket.localPort ?? 0}`;
}

/**
 * Whether the request carries more than one Host line: RFC 9112 section 3.2 (a server answers
 * 400 to a request with more than one Host field line). node:http keeps the first in
 * `req.headers.host`; `rawHeaders` holds every line.
 */
export function hasRepeatedHost(req: IncomingMessage): boolean {
  return headerLines(req.rawHeaders, 'host') > 1;
}

/** The 400 a request with two Host lines gets (plain text, security headers). */
function repeatedHostAnswer(): PlainAnswer {
  return plainAnswer(400, 'Bad Request');
}

/** Builds the shared handler for `proxy`. */
export function createNodeHandler(proxy: SvcProxy): SvcNodeHandler {
  // ws's own ceiling sits above the relay's 1 MiB browser frame, so the relay answers 4400 first
  const wss = new WebSocketServer({ noServer: true, maxPayload: 2 * DEFAULTS.browserFrameBytes });

  async function handleRequest(
    req: IncomingMessage,
    res: ServerResponse,
    next: NextHandler,
  ): Promise<void> {
    // a request pipelined behind an answer waits for it; after a connection: close, nothing runs
    noteAnswer(req, res);
    const turn = inTurn(req, res);
    if (turn === false || (turn !== true && !(await turn))) return;
    if (hasRepeatedHost(req)) {
      req.resume();
      return sendAnswer(req, res, repeatedHostAnswer());
    }
    const path = pathOf(req.url);
    if (!mayClaim(proxy.config, path)) return next();
    // a small body is read ahead only with room in the memory budget, held until it is answered
    // (src/http/preread.ts); without, the core reads it and reserves or refuses it
    const length = req.headers['content-length'];
    const readAhead = mayPreread(length) ? proxy.readAhead(Number(length)) : null;
    try {
      const conn = { remoteAddress: req.socket.remoteAddress };
      if (readAhead && takesLeanPath(req, path, proxy.config.httpPath)) {
        return await answerLean(proxy, req, res, originOf(req), conn);
      }
      const signal = responseAbortSignal(res);
      const entry = await toRequest(req, originOf(req), signal, !!readAhead);
      const answer = await proxy.serve(entry.request, entry.conn);
      if (answer === null) return next();
      await sendAnswer(req, res, answer);
    } catch {
      // a listed cross-origin caller gets its CORS headers here too (SPEC "Checks before any
      // route" 3), so the browser shows it a 500 rather than a network failure
      const cors = () => corsHeaders(proxy.config, upgradeRequest(req, new URL(originOf(req))));
      if (!res.headersSent) res.writeHead(500, cors()).end();
      else res.destroy();
    } finally {
      readAhead?.();
    }
  }

  function handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const url = new URL(req.url ?? '/', originOf(req));
    const request = upgradeRequest(req, url);
    const claimed = url.pathname === proxy.config.wsPath;
    // pipelined behind an unfinished answer: the connection ends after it, nothing is upgraded
    if (claimed && upgradeBehindAnswer(socket)) return true;
    if (claimed && hasRepeatedHost(req)) {
      refuseUpgrade(socket, repeatedHostAnswer());
      return true;
    }
    const decision = proxy.upgrade(request, { remoteAddress: req.socket.remoteAddress });
    if (decision.kind === 'unclaimed') return false;
    if (decision.kind === 'refuse') {
      refuseUpgrade(socket, decision.answer);
      return true;
    }
    wss.handleUpgrade(req, socket, head, (ws) => proxy.acceptSocket(adaptWsSocket(ws)));
    return true;
  }

  return {
    proxy,
    handleRequest,
    handleUpgrade,
    async close() {
      wss.close();
      await proxy.close();
    },
  };
}
