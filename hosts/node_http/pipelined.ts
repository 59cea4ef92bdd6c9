/**
 * Requests pipelined on one connection, on the node:http hosts: each is served only once the
 * answers before it on that connection are done. SPEC "Size and capacity" (the 413 is sent with
 * `connection: close`): once such an answer is sent, no further request on that connection
 * reaches a route. node:http parses pipelined requests as their bytes arrive and emits each at
 * once, its answer queued behind the earlier ones (`res.socket` stays null until its turn), and it
 * emits an upgrade pipelined behind an unfinished answer straight away; so without this a request
 * sent after an oversize body would run (and be forwarded) while the 413 is still on its way.
 *
 * A request waits for its answer's turn: node:http gives it the connection once the earlier
 * answer finished and kept the connection, and never when that answer closed it (the request then
 * reaches nothing). An upgrade that arrives while an answer on its connection is unfinished
 * reaches nothing either: the connection ends once that answer is done. Bounded by node:http's own
 * pending requests: one close listener per connection with a waiting request, one entry per
 * waiting request; a request served in its turn costs one WeakMap write.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** Per connection: how to end each request still waiting for its turn when the connection closes. */
const waiting = new WeakMap<Duplex, Set<() => void>>();

/** Per connection: the answer of the last request begun on it (answers finish in order). */
const latest = new WeakMap<Duplex, ServerResponse>();

/** Notes `res` as the latest answer on its connection. Call once per request, first thing. */
export function noteAnswer(req: IncomingMessage, res: ServerResponse): void {
  latest.set(req.socket, res);
}

/**
 * Whether `res` may be served: true when it holds its connection (no earlier answer pending) and
 * no earlier answer closed it; else a promise of the same once it got the connection, false when
 * the connection closed first (serve nothing).
 */
export function inTurn(req: IncomingMessage, res: ServerResponse): boolean | Promise<boolean> {
  const socket = req.socket;
  if (res.socket !== null) return !closing(socket);
  let ends = waiting.get(socket);
  if (ends === undefined) {
    const created = new Set<() => void>();
    waiting.set(socket, created);
    socket.once('close', () => {
      for (const end of [...created]) end();
    });
    ends = created;
  }
  const set = ends;
  return new Promise((resolve) => {
    const end = () => {
      set.delete(end);
      res.off('socket', onSocket);
      resolve(false);
    };
    const onSocket = () => {
      set.delete(end);
      resolve(!closing(socket));
    };
    set.add(end);
    res.once('socket', onSocket);
  });
}

/**
 * Whether an earlier answer closed the connection: node:http ends its writing side after an
 * answer with `connection: close` (and a request parsed after that answer finished is given the
 * connection at once, as if it were free).
 */
function closing(socket: Duplex): boolean {
  return socket.writableEnded || socket.destroyed;
}

/** The latest answer on `socket` when it is still being made (not finished, not destroyed). */
function unfinishedAnswer(socket: Duplex): ServerResponse | null {
  const last = latest.get(socket);
  // finished, or destroyed with its connection (its close already happened): nothing to wait for
  if (last === undefined || last.writableFinished || last.destroyed) return null;
  return last;
}

/**
 * Ends the connection once `answer` (its latest) is done: what the answer wrote is flushed first,
 * like node:http's destroySoon.
 */
function endAfter(answer: ServerResponse, socket: Duplex): void {
  answer.once('close', () => {
    if (!socket.writable || socket.writableFinished) return void socket.destroy();
    socket.once('finish', () => socket.destroy());
    socket.end();
  });
}

/**
 * Whether an upgrade on `socket` arrived behind an unfinished answer. If so the connection is
 * ended once that answer is done (its bytes still reach the caller) and the upgrade reaches
 * nothing: the caller must not serve it.
 */
export function upgradeBehindAnswer(socket: Duplex): boolean {
  const last = unfinishedAnswer(socket);
  if (last === null) return false;
  endAfter(last, socket);
  return true;
}

/** Node's answers to a connection's own error (node:http's default `clientError`), by code. */
const CLIENT_ERROR_STATUS: Readonly<Record<string, string>> = Object.freeze({
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: '413 Payload Too Large',
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
});

/**
 * The server's `clientError` listener: what node:http does by default (an error answer when no
 * answer has begun on the connection, then the connection ends), except that bytes that do not
 * parse behind complete requests never overtake those requests' answers. node:http on Deno emits
 * the parse error while the answer to an earlier request on the connection is still being made
 * and, by default, would answer 400 ahead of it (an oversize body's 413 would then never be
 * seen). So when the connection's latest request arrived whole, its answers are given in turn,
 * then the connection ends; when that request's body is itself what failed to parse, the
 * connection ends at once (no answer can be given to it).
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const last = unfinishedAnswer(socket);
  if (last !== null && error.code?.startsWith('HPE_') && last.req.complete) {
    return endAfter(last, socket);
  }
  if (!socket.writable || last?.headersSent) return void socket.destroy();
  const status = CLIENT_ERROR_STATUS[error.code ?? ''] ?? '400 Bad Request';
  socket.once('finish', () => socket.destroy());
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
}
