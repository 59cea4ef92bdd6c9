/**
 * The Node host's common path (docs/benchmarks.md "The gateway's own cost"): a POST to the GraphQL
 * route whose declared body is small is read whole and answered through `proxy.handleGraphql` with
 * no Web Request, Headers, Response or stream: the core reads a {@link SvcRequest} over node's own
 * request, and the PlainAnswer it returns is written with one `end()` carrying its content-length.
 * The checks, their order and the answers are the core's, the same as on every other path (SPEC
 * "Order in which a GraphQL body is checked"). An upgrade is decided over the same light request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Buffer } from 'node:buffer';
import type { PlainAnswer } from '../../src/http/answer.ts';
import { mayPreread, withPrereadBody } from '../../src/http/preread.ts';
import type { HeaderReader, SvcRequest } from '../../src/http/request.ts';
import type { ConnInfo, SvcProxy } from '../../src/proxy.ts';
import { lingerAfterEarlyAnswer, readSmallBody } from './bridge.ts';
import { responseSignal } from './caller_signal.ts';

/** Whether header name `key` is `lower` (lower-case) in ASCII case folding (RFC 9110 5.1). */
function sameName(key: string, lower: string): boolean {
  if (key.length !== lower.length) return false;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if ((c >= 65 && c <= 90 ? c + 32 : c) !== lower.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * Header values of a node request, read from its raw lines (`rawHeaders`, which node keeps
 * anyway): repeated ones joined with ", " as Web Headers join them. Nothing is built per request
 * but this object (node's `headersDistinct` builds an array per header).
 */
class RawHeaders implements HeaderReader {
  readonly #raw: string[];

  constructor(raw: string[]) {
    this.#raw = raw;
  }

  get(name: string): string | null {
    const raw = this.#raw;
    const lower = name.toLowerCase();
    let value: string | null = null;
    for (let i = 0; i < raw.length; i += 2) {
      if (!sameName(raw[i], lower)) continue;
      value = value === null ? raw[i + 1] : `${value}, ${raw[i + 1]}`;
    }
    return value;
  }
}

/** Header values of a node request (see {@link RawHeaders}). */
function headerReader(req: IncomingMessage): HeaderReader {
  return new RawHeaders(req.rawHeaders);
}

/**
 * An upgrade request as the core's upgrade decision reads it (its URL and headers), over node's
 * own request: no Web Request or Headers per socket opened (docs/benchmarks.md "WebSocket
 * relay": what a handshake allocates counts in the memory of idle sockets).
 */
export function upgradeRequest(req: IncomingMessage, origin: string): SvcRequest {
  return {
    method: 'GET',
    url: new URL(req.url ?? '/', origin).href,
    headers: headerReader(req),
    body: null,
  };
}

/** Whether `req` takes the common path: POST on the GraphQL route with a small declared body. */
export function takesLeanPath(req: IncomingMessage, path: string, httpPath: string): boolean {
  if (req.method !== 'POST' || path !== httpPath) return false;
  return mayPreread(req.headers['content-length']);
}

/** Writes `answer` with one `end()` (content-length set; the oversize linger when it applies). */
export function sendPlainAnswer(
  req: IncomingMessage,
  res: ServerResponse,
  answer: PlainAnswer,
): void {
  const headers: Record<string, string | string[]> = { ...answer.headers };
  if (!req.complete) lingerAfterEarlyAnswer(req, headers);
  if (answer.body === null) {
    res.writeHead(answer.status, headers).end();
    return;
  }
  headers['content-length'] = String(Buffer.byteLength(answer.body));
  res.writeHead(answer.status, headers).end(answer.body);
}

/** Reads the body, lets the core answer, writes the answer (see the module comment). */
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
    headers: headerReader(req),
    body: null,
    // the browser going away cancels the upstream call (docs/operations.md "Faults")
    signal: responseSignal(res),
  };
  withPrereadBody(request, whole);
  sendPlainAnswer(req, res, await proxy.handleGraphql(request, conn));
}
