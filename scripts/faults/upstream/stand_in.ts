/**
 * An HTTP upstream stand-in for the upstream faults (docs/operations.md "Faults") on raw TCP, so it
 * sees exactly what the gateway does with its connections: how many are open right now, and whether
 * the gateway closed one. It answers requests according to its `mode`, which a fault switches
 * while traffic flows. Every answer says `connection: close` (one request per connection), so
 * an open connection is always a call in progress.
 *
 * In front of a real upstream (`target`, the sandbox), only the fault's own requests get the
 * mode: a GraphQL call whose operation is named `Fault` (`?op=Fault`) or an upload carrying
 * `fileType=fault` in its query. Every other request is forwarded to the target and its answer relayed
 * (still one request per connection), and a WebSocket upgrade is piped to the target byte for
 * byte, so ordinary traffic (POSTs, uploads, subscriptions) flows beside the fault.
 */

import { closeQuietly, concat, ENCODER, type Head, readBody, readHead, write } from './wire.ts';

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
  /** Connections carrying a fault's request (every request without a target), open now. */
  readonly open: number;
  /** WebSocket connections piped to the target, open now. */
  readonly piped: number;
  /** Cuts every piped WebSocket connection (both sides); returns how many. */
  cutPiped(): number;
  /** While true, the piped sockets stop reading the gateway's frames (the upstream's frames still flow). */
  readsStopped: boolean;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** A fault's requests whose whole body was read so far (then answered per the mode). */
  readonly requests: number;
  /** A fault's requests whose head was read so far, whole body or not (a cut one counts). */
  readonly heads: number;
  /** Connections the gateway closed before the stand-in answered (or while it answered). */
  readonly closedByGateway: number;
  /** Resolves once `open` is at most `n` (polls every 10 ms; rejects after `limitMs`). */
  waitOpenAtMost(n: number, limitMs?: number): Promise<void>;
  /** Resolves once `requests` reached `n` (rejects after `limitMs`). */
  waitRequests(n: number, limitMs?: number): Promise<void>;
  /** Stops listening and closes every connection (the upstream goes down). */
  down(): Promise<void>;
  /** Listens again on the same port (the upstream is back). */
  up(): void;
  /** Stops listening and closes every connection. */
  close(): Promise<void>;
}

/** Options of a stand-in: a port (default a free one), a target to forward ordinary traffic to. */
export interface StandInOptions {
  port?: number;
  /** `http://127.0.0.1:<port>` of the real upstream (the sandbox); absent: every request is a fault's. */
  target?: string;
}

/** Starts a stand-in on loopback in `mode` (see {@link StandInOptions}). */
export function startUpstreamStandIn(
  mode: StandInMode = { kind: 'answer' },
  options: StandInOptions = {},
): UpstreamStandIn {
  let listener: Deno.Listener | null = Deno.listen({
    hostname: '127.0.0.1',
    port: options.port ?? 0,
  });
  const port = (listener.addr as Deno.NetAddr).port;
  /** Connections whose request head is not read yet. */
  const pending = new Set<Deno.Conn>();
  /** Connections carrying a fault's request (the mode's), open now. */
  const conns = new Set<Deno.Conn>();
  const piped = new Set<Deno.Conn>();
  const stats = { accepted: 0, requests: 0, heads: 0, closedByGateway: 0 };
  const front: Front = { target: options.target, readsStopped: false, pending, conns, piped };
  const accept = async (from: Deno.Listener) => {
    try {
      for await (const conn of from) {
        stats.accepted++;
        pending.add(conn);
        serve(conn, standIn, stats, front).finally(() => {
          pending.delete(conn);
          conns.delete(conn);
          piped.delete(conn);
          closeQuietly(conn);
        });
      }
    } catch { /* listener closed */ }
  };
  let accepting = accept(listener);
  const standIn = {
    url: `http://127.0.0.1:${port}`,
    port,
    mode,
    get open() {
      return conns.size;
    },
    get piped() {
      return piped.size;
    },
    set readsStopped(stopped: boolean) {
      front.readsStopped = stopped;
    },
    get readsStopped() {
      return front.readsStopped;
    },
    cutPiped() {
      const n = piped.size;
      for (const conn of piped) closeQuietly(conn);
      return n;
    },
    get accepted() {
      return stats.accepted;
    },
    get requests() {
      return stats.requests;
    },
    get heads() {
      return stats.heads;
    },
    get closedByGateway() {
      return stats.closedByGateway;
    },
    waitOpenAtMost: (n: number, limitMs = 10_000) => until(() => conns.size <= n, limitMs),
    waitRequests: (n: number, limitMs = 10_000) => until(() => stats.requests >= n, limitMs),
    async down() {
      try {
        listener?.close();
      } catch { /* closed */ }
      listener = null;
      for (const conn of [...pending, ...conns]) closeQuietly(conn);
      standIn.cutPiped();
      await accepting;
    },
    up() {
      if (listener) return;
      listener = Deno.listen({ hostname: '127.0.0.1', port });
      accepting = accept(listener);
    },
    close: () => standIn.down(),
  };
  return standIn;
}

async function until(test: () => boolean, limitMs: number): Promise<void> {
  const end = Date.now() + limitMs;
  while (!test()) {
    if (Date.now() > end) throw new Error(`still not so after ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Where ordinary traffic goes (see the module comment). */
interface Front {
  target: string | undefined;
  /** While true, piped sockets' frames from the gateway are not read (the kernel buffers fill). */
  readsStopped: boolean;
  pending: Set<Deno.Conn>;
  conns: Set<Deno.Conn>;
  piped: Set<Deno.Conn>;
}

/** Reads one request; a fault's is answered per the mode, any other forwarded to the target. */
async function serve(
  conn: Deno.Conn,
  standIn: { mode: StandInMode },
  stats: { requests: number; heads: number; closedByGateway: number },
  front: Front,
): Promise<void> {
  const head = await readHead(conn);
  if (head === null) return;
  front.pending.delete(conn);
  const ordinary = front.target !== undefined && !/[?&](op=Fault|fileType=fault)\b/.test(head.path);
  if (ordinary && head.upgrade) {
    front.piped.add(conn);
    return await pipeTo(conn, front, head.raw);
  }
  if (!ordinary) {
    front.conns.add(conn);
    stats.heads++;
  }
  const body = await readBody(conn, head);
  if (body === null) return;
  if (ordinary) return void await forward(conn, front.target!, head, body);
  stats.requests++;
  const answered = await answer(conn, standIn.mode, head.path);
  if (!answered) stats.closedByGateway++;
}

/** Forwards one ordinary request to the target and relays the answer (then closes). */
async function forward(conn: Deno.Conn, target: string, head: Head, body: Uint8Array) {
  const headers = new Headers();
  for (const line of head.lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    if (['host', 'connection', 'content-length', 'transfer-encoding'].includes(name)) continue;
    headers.append(name, line.slice(colon + 1).trim());
  }
  try {
    const response = await fetch(`${target}${head.path}`, {
      method: head.method,
      headers,
      body: head.method === 'GET' || head.method === 'HEAD'
        ? undefined
        : body as Uint8Array<ArrayBuffer>,
    });
    const bytes = new Uint8Array(await response.arrayBuffer());
    const type = response.headers.get('content-type') ?? 'application/json';
    const status = `HTTP/1.1 ${response.status} ${response.statusText || 'OK'}\r\n`;
    await write(
      conn,
      concat(
        ENCODER.encode(
          `${status}content-type: ${type}\r\ncontent-length: ${bytes.byteLength}\r\n` +
            'connection: close\r\n\r\n',
        ),
        bytes,
      ),
    );
  } catch {
    // the target is down: the connection closes unanswered (what a dead upstream does)
  }
}

/** Pipes `conn` (its head already read: `raw`) to the target, both ways, until either closes. */
async function pipeTo(conn: Deno.Conn, front: Front, raw: Uint8Array): Promise<void> {
  const target = front.target!;
  const { hostname, port } = new URL(target);
  let upstream: Deno.Conn;
  try {
    upstream = await Deno.connect({ hostname, port: Number(port) });
  } catch {
    return;
  }
  const cut = () => {
    closeQuietly(conn);
    closeQuietly(upstream);
  };
  await write(upstream, raw);
  await Promise.race([
    copy(conn, upstream, () => front.readsStopped),
    copy(upstream, conn),
  ]).finally(cut);
}

async function copy(from: Deno.Conn, to: Deno.Conn, paused?: () => boolean): Promise<void> {
  const chunk = new Uint8Array(64 * 1024);
  while (true) {
    while (paused?.()) await new Promise((resume) => setTimeout(resume, 50));
    const n = await from.read(chunk).catch(() => null);
    if (n === null) return;
    if (!await write(to, chunk.subarray(0, n))) return;
  }
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
