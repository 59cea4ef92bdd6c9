/**
 * HTTP/1.1 on a raw connection, as much as the upstream stand-in needs (stand_in.ts): a request
 * head, a content-length or chunked body, writes that report a closed peer, byte helpers.
 */

export const CRLF2 = new TextEncoder().encode('\r\n\r\n');
export const ENCODER = new TextEncoder();
export const LAST_CHUNK = ENCODER.encode('0\r\n\r\n');

/** A request head as read: the raw bytes read so far, its text (lower-cased) and a few facts. */
export interface Head {
  raw: Uint8Array;
  text: string;
  method: string;
  path: string;
  /** Header lines as sent. */
  lines: string[];
  bodyStart: number;
  upgrade: boolean;
}

/** Reads until the end of the head; null when the peer closed first. */
export async function readHead(conn: Deno.Conn): Promise<Head | null> {
  let raw: Uint8Array = new Uint8Array(0);
  const chunk = new Uint8Array(64 * 1024);
  let end = -1;
  while (end === -1) {
    const n = await conn.read(chunk).catch(() => null);
    if (n === null) return null;
    raw = concat(raw, chunk.subarray(0, n));
    end = indexOf(raw, CRLF2);
  }
  const sent = new TextDecoder().decode(raw.subarray(0, end));
  const [requestLine, ...lines] = sent.split('\r\n');
  const [method, path] = requestLine.split(' ');
  const text = sent.toLowerCase();
  return {
    raw,
    text,
    method,
    path: path ?? '/',
    lines,
    bodyStart: end + 4,
    upgrade: /\r\nupgrade:\s*websocket/.test(text),
  };
}

/** Reads the body (content-length or chunked); its bytes, or null when the peer closed first. */
export async function readBody(conn: Deno.Conn, head: Head): Promise<Uint8Array | null> {
  const length = Number(head.text.match(/\r\ncontent-length:\s*(\d+)/)?.[1] ?? 0);
  const chunked = /\r\ntransfer-encoding:\s*chunked/.test(head.text);
  let body: Uint8Array = head.raw.subarray(head.bodyStart);
  const chunk = new Uint8Array(64 * 1024);
  const complete = () => chunked ? endsWith(body, LAST_CHUNK) : body.byteLength >= length;
  while (!complete()) {
    const n = await conn.read(chunk).catch(() => null);
    if (n === null) return null;
    body = concat(body, chunk.subarray(0, n));
  }
  return chunked ? unchunk(body) : body;
}

/** The payload of a chunked body. */
export function unchunk(bytes: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.byteLength) {
    const eol = indexOf(bytes.subarray(at), ENCODER.encode('\r\n'));
    const size = parseInt(new TextDecoder().decode(bytes.subarray(at, at + eol)), 16);
    if (!size) break;
    parts.push(bytes.subarray(at + eol + 2, at + eol + 2 + size));
    at += eol + 2 + size + 2;
  }
  return parts.reduce((a, b) => concat(a, b), new Uint8Array(0));
}

/** Closes `conn`, whatever state it is in. */
export function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch { /* already closed */ }
}

/** Writes all of `text`; false when the peer is gone. */
export async function write(conn: Deno.Conn, text: string | Uint8Array): Promise<boolean> {
  const bytes = typeof text === 'string' ? ENCODER.encode(text) : text;
  try {
    let offset = 0;
    while (offset < bytes.byteLength) offset += await conn.write(bytes.subarray(offset));
    return true;
  } catch {
    return false;
  }
}

export function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a);
  out.set(b, a.byteLength);
  return out;
}

export function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

export function endsWith(bytes: Uint8Array, tail: Uint8Array): boolean {
  if (bytes.byteLength < tail.byteLength) return false;
  const start = bytes.byteLength - tail.byteLength;
  return tail.every((b, i) => bytes[start + i] === b);
}
