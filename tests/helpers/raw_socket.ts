/**
 * Raw TCP exchanges over node:net, for requests no HTTP client will send: a Host that is no host,
 * two Host lines, no Host at all (HTTP/1.0), requests pipelined behind an oversize body. The
 * bytes go out exactly as given; everything the server writes is read until it ends the
 * connection (or, bounded, until `untilMs` passes: the exchange then ends it itself and says so).
 */
import net from 'node:net';
import { Buffer } from 'node:buffer';

/** What one connection brought back. */
export interface RawExchange {
  /** Every byte the server wrote, as latin1 text. */
  text: string;
  /** The status codes of the answers in `text`, in order. */
  statuses: number[];
  /** true when the server ended the connection; false when the exchange ended it. */
  closedByServer: boolean;
}

/** How many complete answers (head plus content-length or chunked body) `text` holds. */
export function completeAnswers(text: string): number {
  let count = 0;
  let at = 0;
  while (true) {
    const end = text.indexOf('\r\n\r\n', at);
    if (end === -1) return count;
    const head = text.slice(at, end).toLowerCase();
    const length = /\r\ncontent-length: *(\d+)/.exec(head);
    let next: number;
    if (length) next = end + 4 + Number(length[1]);
    else if (/\r\ntransfer-encoding: *chunked/.test(head)) {
      const last = text.indexOf('\r\n0\r\n\r\n', end);
      if (last === -1) return count;
      next = last + 7;
    } else next = end + 4;
    if (next > text.length) return count;
    count++;
    at = next;
  }
}

/**
 * Sends `parts` in order (waiting on drain), then reads until the server ends the connection, or
 * until `answers` complete answers have arrived (the exchange then ends it: a server keeping the
 * connection open is not waited for).
 */
export function exchange(
  url: string,
  parts: readonly (string | Uint8Array)[],
  options: { answers?: number; untilMs?: number } = {},
): Promise<RawExchange> {
  const untilMs = options.untilMs ?? 10_000;
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let closedByServer = true;
    const limit = setTimeout(() => {
      closedByServer = false;
      socket.destroy();
    }, untilMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (options.answers === undefined) return;
      if (completeAnswers(Buffer.concat(chunks).toString('latin1')) < options.answers) return;
      closedByServer = false;
      socket.destroy();
    });
    socket.on('error', () => {/* a reset ends the exchange like a close */});
    socket.on('close', () => {
      clearTimeout(limit);
      const text = Buffer.concat(chunks).toString('latin1');
      const statuses = [...text.matchAll(/HTTP\/1\.[01] (\d{3}) /g)].map((m) => Number(m[1]));
      resolve({ text, statuses, closedByServer });
    });
    socket.on('connect', async () => {
      for (const part of parts) {
        const ok = socket.write(typeof part === 'string' ? Buffer.from(part, 'latin1') : part);
        if (!ok) {
          const drained = await new Promise<boolean>((done) => {
            socket.once('drain', () => done(true));
            socket.once('close', () => done(false));
          });
          if (!drained) return;
        }
      }
    });
  });
}

/** The body of the first answer in `text` (after its head), as latin1 text. */
export function firstBody(text: string): string {
  const end = text.indexOf('\r\n\r\n');
  return end === -1 ? '' : text.slice(end + 4);
}

/** A relay upgrade request (graphql-transport-ws) for GET /svc/graphql with the given Host lines. */
export function upgradeRequest(hostLines: string[]): string {
  return [
    'GET /svc/graphql HTTP/1.1',
    ...hostLines,
    'connection: Upgrade',
    'upgrade: websocket',
    'sec-websocket-version: 13',
    'sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==',
    'sec-websocket-protocol: graphql-transport-ws',
    '',
    '',
  ].join('\r\n');
}
