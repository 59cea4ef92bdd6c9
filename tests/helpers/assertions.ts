/**
 * Assertions shared by the HTTP integration suites.
 */
import assert from 'node:assert/strict';
import { SECURITY_HEADERS } from '../../src/http/security_headers.ts';
import type { Sandbox } from '../../scripts/sandbox/mod.ts';

/** Every security header of the spec is on the response. */
export function assertSecurityHeaders(res: Response): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
    assert.equal(res.headers.get(name), value, `security header ${name}`);
  }
}

/**
 * A proxy refusal: the status, the envelope with the code, cache-control:
 * no-store and the security headers. Returns the envelope's message.
 */
export async function assertRefusal(res: Response, status: number, code: string): Promise<string> {
  const text = await res.text();
  assert.equal(res.status, status, `status for ${code}: ${text}`);
  assert.equal(res.headers.get('cache-control'), 'no-store');
  assertSecurityHeaders(res);
  const body = JSON.parse(text);
  assert.equal(body.errors?.[0]?.extensions?.code, code, text);
  assert.equal(typeof body.errors[0].message, 'string');
  return body.errors[0].message;
}

/**
 * Runs `act` and asserts that nothing of the caller's reached the sandbox
 * meanwhile: no HTTP request (the bot fence's own SvcWorkspaceBots question
 * aside) and no socket.
 */
export async function assertNothingReached<T>(sandbox: Sandbox, act: () => Promise<T>): Promise<T> {
  const requests = forwarded(sandbox).length;
  const sockets = sandbox.sockets.length;
  const result = await act();
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(forwarded(sandbox).length, requests, 'an HTTP request reached the upstream');
  assert.equal(sandbox.sockets.length, sockets, 'a socket reached the upstream');
  return result;
}

/** What reached the sandbox apart from the bot fence's own SvcWorkspaceBots question. */
export function forwarded(sandbox: Sandbox) {
  return sandbox.received.filter((r) => r.search !== '?op=SvcWorkspaceBots');
}

/** POSTs a JSON body (any value) to the gateway's GraphQL path. */
export function postGraphql(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  path = '/svc/graphql',
): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/**
 * Sends a raw HTTP/1.1 request over TCP (to set Host and other headers fetch
 * will not) and returns the status, headers and body text (chunked bodies
 * decoded).
 */
export async function rawRequest(
  url: string,
  head: string,
  body = '',
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { hostname, port } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  await conn.write(new TextEncoder().encode(`${head}\r\n\r\n${body}`));
  let text = '';
  const buf = new Uint8Array(65536);
  const decoder = new TextDecoder();
  while (!complete(text)) {
    const n = await conn.read(buf).catch(() => null);
    if (n === null) break;
    text += decoder.decode(buf.subarray(0, n));
  }
  conn.close();
  const end = text.indexOf('\r\n\r\n');
  const headers = parseHeaders(text.slice(0, end));
  const raw = text.slice(end + 4);
  const decoded = headers['transfer-encoding'] === 'chunked' ? unchunk(raw) : raw;
  return { status: Number(text.slice(9, 12)), headers, body: decoded };
}

/** Whether a response text holds its whole body (content-length or the last chunk). */
function complete(text: string): boolean {
  const end = text.indexOf('\r\n\r\n');
  if (end === -1) return false;
  const headers = parseHeaders(text.slice(0, end));
  const body = text.slice(end + 4);
  if (headers['transfer-encoding'] === 'chunked') return body.endsWith('0\r\n\r\n');
  const length = Number(headers['content-length'] ?? NaN);
  return !Number.isNaN(length) && body.length >= length;
}

function unchunk(raw: string): string {
  let out = '';
  let rest = raw;
  while (true) {
    const line = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, line), 16);
    if (!size) return out;
    out += rest.slice(line + 2, line + 2 + size);
    rest = rest.slice(line + 2 + size + 2);
  }
}

/** Header lines by lowercase name; a name given twice is joined with ', ' (as fetch does). */
function parseHeaders(head: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    out[name] = name in out ? `${out[name]}, ${value}` : value;
  }
  return out;
}
