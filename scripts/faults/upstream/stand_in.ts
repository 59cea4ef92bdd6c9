/**
 * An HTTP upstream stand-in for the upstream faults (issue 23) on raw TCP, so it sees exactly
 * what the gateway does with its connections: how many are open right now, and whether the
 * gateway closed one. It answers POST /graphql and POST /api/... according to its `mode`, which
 * a fault switches while traffic flows. Every answer says `connection: close` (one request per
 * connection), so an open connection is always a call in progress.
 */

/** How the stand-in treats the next requests. */
export type StandInMode =
  /** 200 with a small GraphQL answer. */
  | { kind: 'answer' }
  /** Reads the request and never answers (the connection stays open until the gateway closes it). */
  | { kind: 'stall' }
  /** Answers 200 after `ms`. */
  | { kind: 'delay'; ms: number }
  /** Sends the headers and half the promised body, then closes the connection. */
  | { kind: 'reset' }
  /** 200 with a body that is not JSON (an HTML error page). */
  | { kind: 'notJson' }
  /** 200 with a JSON body of `bytes` bytes; `declared`: with a content-length (else chunked). */
  | { kind: 'large'; bytes: number; declared: boolean };

/** The small answer of mode 'answer' (a no-bot query's). */
export const ANSWER = '{"data":{"currentUser":{"id":"u1"}}}';

/** A running stand-in. */
export interface UpstreamStandIn {
  /** e.g. http://127.0.0.1:41234 (what SVC_API_BASE is set to). */
  readonly url: string;
  readonly port: number;
  mode: StandInMode;
  /** Connections open now. */
  readonly open: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Requests whose head was read so far. */
  readonly requests: number;
  /** Connections the gateway closed before the stand-in answered (or while it answered). */
  readonly closedByGateway: number;
  /** Resolves once `open` is at most `n` (polls every 10 ms; rejects after `limitMs`). */
  waitOpenAtMost(n: number, limitMs?: number): Promise<void>;
  /** Resolves once `requests` reached `n` (rejects after `limitMs`). */
  waitRequests(n: number, limitMs?: number): Promise<void>;
  /** Stops listening and closes every connection. */
  close(): Promise<void>;
}

const CRLF2 = new TextEncoder().encode('\r\n\r\n');
const ENCODER = new TextEncoder();
const LAST_CHUNK = ENCODER.encode('0\r\n\r\n');

/** Starts a stand-in on a free loopback port (or `port`) in `mode`. */
export function startUpstreamStandIn(
  mode: StandInMode = { kind: 'answer' },
  port = 0,
): UpstreamStandIn {
  const listener = Deno.listen({ hostname: '127.0.0.1', port });
  const conns = new Set<Deno.Conn>();
  const stats = { accepted: 0, requests: 0, closedByGateway: 0 };
  const standIn = {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    port: (listener.addr as Deno.NetAddr).port,
    mode,
    get open() {
      return conns.size;
    },
    get accepted() {
      return stats.accepted;
    },
    get requests() {
      return stats.requests;
    },
    get closedByGateway() {
      return stats.closedByGateway;
    },
    waitOpenAtMost: (n: number, limitMs = 10_000) => until(() => conns.size <= n, limitMs),
    waitRequests: (n: number, limitMs = 10_000) => until(() => stats.requests >= n, limitMs),
    async close() {
      try {
        listener.close();
      } catch { /* closed */ }
      for (const conn of conns) closeQuietly(conn);
      await accepting;
    },
  };
  const accepting = (async () => {
    try {
      for await (const conn of listener) {
        stats.accepted++;
        conns.add(conn);
        serve(conn, standIn, stats).finally(() => {
          conns.delete(conn);
          closeQuietly(conn);
        });
      }
    } catch { /* listener closed */ }
  })();
  return standIn;
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch { /* already closed */ }
}

async function until(test: () => boolean, limitMs: number): Promise<void> {
  const end = Date.now() + limitMs;
  while (!test()) {
    if (Date.now() > end) throw new Error(`still not so after ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Reads one request (head, then a content-length or chunked body), answers per the mode. */
async function serve(
  conn: Deno.Conn,
  standIn: { mode: StandInMode },
  stats: { requests: number; closedByGateway: number },
): Promise<void> {
  const request = await readRequest(conn);
  if (request === null) return;
  stats.requests++;
  const mode = standIn.mode;
  const answered = await answer(conn, mode, request.path);
  if (!answered) stats.closedByGateway++;
}

/** Reads the request; null when the peer closed first. Bodies are read and dropped. */
async function readRequest(conn: Deno.Conn): Promise<{ path: string } | null> {
  let buffer: Uint8Array = new Uint8Array(0);
  const chunk = new Uint8Array(64 * 1024);
  let headEnd = -1;
  while (headEnd === -1) {
    const n = await conn.read(chunk).catch(() => null);
    if (n === null) return null;
    buffer = concat(buffer, chunk.subarray(0, n));
    headEnd = indexOf(buffer, CRLF2);
  }
  const head = new TextDecoder().decode(buffer.subarray(0, headEnd)).toLowerCase();
  const path = head.split(' ')[1] ?? '/';
  const length = Number(head.match(/\r\ncontent-length:\s*(\d+)/)?.[1] ?? 0);
  const chunked = /\r\ntransfer-encoding:\s*chunked/.test(head);
  // only the byte count (content-length) or the last bytes (chunked: the terminator) are kept
  let tail: Uint8Array = buffer.subarray(headEnd + 4);
  let total = tail.byteLength;
  const complete = () => chunked ? endsWith(tail, LAST_CHUNK) : total >= length;
  while (!complete()) {
    const n = await conn.read(chunk).catch(() => null);
    if (n === null) return null;
    total += n;
    tail = concat(tail.subarray(Math.max(0, tail.byteLength - 8)), chunk.subarray(0, n));
  }
  return { path };
}

/** Writes the mode's answer; false when the gateway closed the connection first. */
async function answer(conn: Deno.Conn, mode: StandInMode, path: string): Promise<boolean> {
  const isUpload = path.startsWith('/api/');
  const small = isUpload ? '{"url":"https://files.example/u1"}' : ANSWER;
  switch (mode.kind) {
    case 'answer':
      return await write(conn, head(200, 'application/json', small.length) + small);
    case 'delay': {
      const closed = waitClosed(conn);
      const timer = new Promise((r) => setTimeout(() => r('time'), mode.ms));
      if (await Promise.race([closed, timer]) !== 'time') return false;
      return await write(conn, head(200, 'application/json', small.length) + small);
    }
    case 'stall':
      await waitClosed(conn);
      return false;
    case 'reset': {
      const body = small.repeat(64);
      return await write(conn, head(200, 'application/json', body.length) + body.slice(0, 100));
    }
    case 'notJson': {
      const page = '<html><body>502 Bad Gateway</body></html>';
      return await write(conn, head(200, 'text/html', page.length) + page);
    }
    case 'large':
      return await writeLarge(conn, mode.bytes, mode.declared);
  }
}

/** Resolves once the peer closed (reads and drops anything it still sends). */
async function waitClosed(conn: Deno.Conn): Promise<'closed'> {
  const chunk = new Uint8Array(16 * 1024);
  while (await conn.read(chunk).catch(() => null) !== null) { /* dropped */ }
  return 'closed';
}

function head(status: number, type: string, length: number | null): string {
  const size = length === null ? 'transfer-encoding: chunked' : `content-length: ${length}`;
  return `HTTP/1.1 ${status} OK\r\ncontent-type: ${type}\r\n${size}\r\nconnection: close\r\n\r\n`;
}

async function write(conn: Deno.Conn, text: string | Uint8Array): Promise<boolean> {
  const bytes = typeof text === 'string' ? ENCODER.encode(text) : text;
  try {
    let offset = 0;
    while (offset < bytes.byteLength) offset += await conn.write(bytes.subarray(offset));
    return true;
  } catch {
    return false;
  }
}

/** A JSON answer `{"data":{"blob":"xxxx..."}}` of exactly `bytes` bytes, written in 64 KiB pieces. */
async function writeLarge(conn: Deno.Conn, bytes: number, declared: boolean): Promise<boolean> {
  const prefix = '{"data":{"blob":"';
  const suffix = '"}}';
  const filler = Math.max(0, bytes - prefix.length - suffix.length);
  if (!await write(conn, head(200, 'application/json', declared ? bytes : null))) return false;
  const piece = 'x'.repeat(64 * 1024);
  const send = (text: string) =>
    write(conn, declared ? text : `${text.length.toString(16)}\r\n${text}\r\n`);
  if (!await send(prefix)) return false;
  for (let left = filler; left > 0; left -= piece.length) {
    if (!await send(left >= piece.length ? piece : piece.slice(0, left))) return false;
  }
  if (!await send(suffix)) return false;
  return declared ? true : await write(conn, '0\r\n\r\n');
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a);
  out.set(b, a.byteLength);
  return out;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

function endsWith(bytes: Uint8Array, tail: Uint8Array): boolean {
  if (bytes.byteLength < tail.byteLength) return false;
  const start = bytes.byteLength - tail.byteLength;
  return tail.every((b, i) => bytes[start + i] === b);
}
