/**
 * node:http to Web Request/Response and back, with the oversize rule of
 * SPEC "Size and capacity": when the core stops reading a body (a 413), the
 * rest is dropped (the stream paused, never buffered), the answer goes out
 * with connection: close, and the socket is destroyed 250 ms later if the
 * caller keeps sending. Written here rather than taken from an adapter
 * library because that rule needs the socket itself.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Buffer } from 'node:buffer';
import type { Duplex } from 'node:stream';
import {
  answerOf,
  type ConnInfo,
  DEFAULTS,
  mayPreread,
  type SvcAnswer,
} from '../../src/host_api.ts';

/** A Web ReadableStream over the request body; cancelling pauses and drops, never destroys. */
function bodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let dropped = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      req.on('data', (chunk: Uint8Array) => {
        if (dropped) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) req.pause();
      });
      req.on('end', () => {
        if (!dropped) controller.close();
      });
      req.on('error', (error) => {
        if (!dropped) controller.error(error);
      });
      // a caller that goes away mid-body: the stream fails instead of waiting forever
      // (docs/operations.md "Faults")
      req.on('close', () => {
        if (!dropped && !req.complete) controller.error(new Error('the caller went away'));
      });
    },
    pull() {
      req.resume();
    },
    cancel() {
      dropped = true;
      req.pause();
    },
  }, { highWaterMark: 4 });
}

/** Content types whose small bodies are handed to the core read ahead. */
const JSON_TYPE = /^application\/json\s*(;|$)/i;

/** The whole body of a request that declared a small content-length (no copy when one chunk). */
export function readSmallBody(req: IncomingMessage): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.once('error', reject);
    // a caller that goes away mid-body: fail instead of waiting forever (docs/operations.md
    // "Faults")
    req.once('close', () => {
      if (!req.complete) reject(new Error('the caller went away'));
    });
  });
}

function webHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  }
  return headers;
}

/**
 * The Web Request for a node request (`origin` is e.g. http://127.0.0.1:8000), with what the
 * proxy takes beside it (`conn`: the peer, and the body when it was read ahead). A body that
 * declared at most 64 KiB is read whole first (cheaper than a stream) when `readAhead` (the host
 * holds room for it in the memory budget: `SvcProxy.readAhead`); any other body is a stream the
 * core reads under its ceiling.
 * `signal` (hosts/node_http/caller_signal.ts) becomes the Request's signal: it aborts when the
 * caller goes away, and the core cancels its upstream call on it (docs/operations.md "Faults").
 */
export async function toRequest(
  req: IncomingMessage,
  origin: string,
  signal?: AbortSignal,
  readAhead = false,
): Promise<{ request: Request; conn: ConnInfo }> {
  const method = req.method ?? 'GET';
  const url = new URL(req.url ?? '/', origin);
  const headers = webHeaders(req);
  const conn: ConnInfo = { remoteAddress: req.socket.remoteAddress };
  if (method === 'GET' || method === 'HEAD') {
    return { request: new Request(url, { method, headers, signal }), conn };
  }
  if (readAhead && mayPreread(req.headers['content-length'])) {
    const bytes = await readSmallBody(req);
    // A JSON body (every JSON route reads through readCappedBytes) goes beside the Request
    // instead of in it: no Web stream for the common path.
    if (JSON_TYPE.test(headers.get('content-type') ?? '')) {
      const request = new Request(url, { method, headers, signal });
      return { request, conn: { ...conn, readAhead: { bytes, counted: true } } };
    }
    const body = bytes as Uint8Array<ArrayBuffer>;
    return { request: new Request(url, { method, headers, signal, body }), conn };
  }
  const request = new Request(url, {
    method,
    headers,
    signal,
    body: bodyStream(req),
    // @ts-ignore: duplex is needed for a streamed request body
    duplex: 'half',
  });
  return { request, conn };
}

/** Bodies up to this many bytes are sent whole with a content-length (one write). */
const WHOLE_BODY_BYTES = 256 * 1024;

/** Reads chunks until the body ends or passes WHOLE_BODY_BYTES. */
async function readHead(
  reader: ReadableStreamDefaultReader<Uint8Array>,
): Promise<{ chunks: Uint8Array[]; done: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size <= WHOLE_BODY_BYTES) {
    const { done, value } = await reader.read();
    if (done) return { chunks, done: true };
    chunks.push(value);
    size += value.byteLength;
  }
  return { chunks, done: false };
}

/**
 * An answer ready before the caller finished sending its body (a 413, or a refusal before the
 * body was read: 415, 401, 403, 429, 503): SPEC "Size and capacity" (the oversize rule) applied
 * as a lingering close, so the answer reaches a caller that is still sending. The answer says
 * `connection: close`; the rest of the body is read and dropped (never buffered); the socket
 * is destroyed `oversizeDestroyMs` (250 ms) after the answer went out if the caller is still
 * sending by then, else it closes normally once the body has ended.
 */
export function lingerAfterEarlyAnswer(
  req: IncomingMessage,
  headers: Record<string, string | string[]>,
): void {
  headers['connection'] = 'close';
  req.removeAllListeners('data');
  req.on('data', () => {});
  req.resume();
  lingerOnClose(req.socket as LingeringSocket);
}

/** A connection as node:http ends it after an answer that closes it (`destroySoon`). */
type LingeringSocket = Duplex & { destroySoon?: () => void };

/**
 * The close of a connection whose caller may still be sending: node:http destroys the socket as
 * soon as an answer that says `connection: close` is written (`destroySoon`), and a socket
 * destroyed with the caller's bytes still unread makes the kernel reset the connection (RFC 9293
 * section 3.6.1), so a caller still sending its body would lose the answer before reading it.
 * Instead the answer is followed by a FIN, what still arrives is read and dropped, and the socket
 * is destroyed when the caller closes its side, or `oversizeDestroyMs` (250 ms) after the answer
 * went out (SPEC "Size and capacity": a caller that keeps sending has its connection ended).
 */
function lingerOnClose(socket: LingeringSocket): void {
  socket.destroySoon = () => {
    socket.end();
    const timer = setTimeout(() => socket.destroy(), DEFAULTS.oversizeDestroyMs);
    socket.once('end', () => socket.destroy());
    socket.once('close', () => clearTimeout(timer));
  };
}

/**
 * Writes the proxy's answer to a node response: a text body with one `end()` (content-length
 * set), a stream's small body whole with its content-length, a large one streamed; applies the
 * oversize socket rule. Synchronous unless the body is a stream.
 */
export function sendAnswer(
  req: IncomingMessage,
  res: ServerResponse,
  answer: SvcAnswer,
): void | Promise<void> {
  const headers: Record<string, string | string[]> = { ...answer.headers };
  if (!req.complete) lingerAfterEarlyAnswer(req, headers);
  const body = answer.body;
  if (body === null) {
    res.writeHead(answer.status, headers).end();
    return;
  }
  if (typeof body === 'string') {
    headers['content-length'] = String(Buffer.byteLength(body));
    res.writeHead(answer.status, headers).end(body);
    return;
  }
  return sendStream(res, answer.status, headers, body);
}

/** A Web Response the host built itself, written as {@link sendAnswer} writes an answer. */
export function sendResponse(
  req: IncomingMessage,
  res: ServerResponse,
  response: Response,
): void | Promise<void> {
  return sendAnswer(req, res, answerOf(response));
}

/** Writes a streamed body: whole with its content-length when small, else chunk by chunk. */
async function sendStream(
  res: ServerResponse,
  status: number,
  headers: Record<string, string | string[]>,
  body: ReadableStream<Uint8Array>,
): Promise<void> {
  const reader = body.getReader();
  res.once('close', () => reader.cancel().catch(() => {}));
  try {
    const head = await readHead(reader);
    const first = Buffer.concat(head.chunks);
    if (head.done) {
      headers['content-length'] = String(first.byteLength);
      res.writeHead(status, headers).end(first);
      return;
    }
    res.writeHead(status, headers);
    res.write(first);
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await new Promise((resume) => res.once('drain', resume));
    }
    res.end();
  } catch {
    res.destroy();
  }
}
