/**
 * The Node host's common path (docs/benchmarks.md "The gateway's own cost"): a POST to the GraphQL
 * route whose declared body is small is read whole and answered through `proxy.serve` with no Web
 * Request, Headers, Response or stream: the core reads a {@link SvcRequest} over node's own
 * request, and the text answer it returns is written with one `end()` carrying its content-length
 * (bridge.ts `sendAnswer`, the writer of every answer).
 * The checks, their order and the answers are the core's, the same as on every other path (SPEC
 * "Order in which a GraphQL body is checked"). An upgrade is decided over the same light request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ConnInfo, mayPreread, type SvcProxy, type SvcRequest } from '../../src/host_api.ts';
import { RawHeaders } from './raw_headers.ts';
import { readSmallBody, sendAnswer } from './bridge.ts';
import { responseSignal } from './caller_signal.ts';

/**
 * An upgrade request as the core's upgrade decision reads it (its URL, as the host resolved it,
 * and its headers), over node's own request: no Web Request or Headers per socket opened
 * (docs/benchmarks.md "WebSocket relay": what a handshake allocates counts in the memory of idle
 * sockets).
 */
export function upgradeRequest(req: IncomingMessage, url: URL): SvcRequest {
  return {
    method: 'GET',
    url: url.href,
    headers: new RawHeaders(req.rawHeaders),
    body: null,
  };
}

/** Whether `req` takes the common path: POST on the GraphQL route with a small declared body. */
export function takesLeanPath(req: IncomingMessage, path: string, httpPath: string): boolean {
  if (req.method !== 'POST' || path !== httpPath) return false;
  return mayPreread(req.headers['content-length']);
}

/**
 * Reads the body, lets the core answer, writes the answer (see the module comment). The caller
 * holds room for the body in the memory budget (`SvcProxy.readAhead`) until this returns.
 */
export async function answerLean(
  proxy: SvcProxy,
  req: IncomingMessage,
  res: ServerResponse,
  origin: string,
  conn: ConnInfo,
): Promise<void> {
  const whole = await readSmallBody(req);
  const request: SvcRequest = {
    method: 'POST',
    url: origin + (req.url ?? '/'),
    headers: new RawHeaders(req.rawHeaders),
    body: null,
    // the browser going away cancels the upstream call (docs/operations.md "Faults")
    signal: responseSignal(res),
  };
  // counted by the room the handler reserved before the read (SvcProxy.readAhead)
  const entry: ConnInfo = { ...conn, readAhead: { bytes: whole, counted: true } };
  const answer = await proxy.serve(request, entry);
  // claimed: the GraphQL route is always the proxy's; a text answer is written synchronously
  return sendAnswer(req, res, answer!);
}
