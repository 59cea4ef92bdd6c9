/**
 * Helpers of the admin panel suites: unlock over real HTTP, call a route with the cookie and
 * the x-svc-admin header (or without either), and the password used throughout.
 */
import assert from 'node:assert/strict';

/** The panel password of the suites (at least 16 characters). */
export const PASSWORD = 'operator-password-0123456789';

/** Options that keep the throttle's pause small in tests (the default stays 500 ms). */
export const FAST = { adminThrottle: { pauseMs: 1 } };

/** What a call sends. */
export interface Call {
  method?: string;
  cookie?: string | null;
  header?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Calls `<url>/svc/admin<path>`: cookie and header as given (the header defaults to '1'). */
export function admin(url: string, path: string, call: Call = {}): Promise<Response> {
  const headers: Record<string, string> = { ...call.headers };
  if (call.cookie) headers.cookie = call.cookie;
  const header = call.header === undefined ? '1' : call.header;
  if (header !== null) headers['x-svc-admin'] = header;
  let body: string | undefined;
  if (call.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = typeof call.body === 'string' ? call.body : JSON.stringify(call.body);
  }
  return fetch(`${url}/svc/admin${path}`, { method: call.method ?? 'GET', headers, body });
}

/** The `svc_admin=<value>` pair of a Set-Cookie header, or null. */
export function cookieOf(res: Response): string | null {
  const set = res.headers.get('set-cookie');
  const match = set ? /^(svc_admin=[^;]*)/.exec(set) : null;
  return match ? match[1] : null;
}

/** POST /session with the password; asserts 200 and answers the cookie pair. */
export async function unlock(url: string, password = PASSWORD): Promise<string> {
  const res = await admin(url, '/session', { method: 'POST', body: { password }, header: null });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  const cookie = cookieOf(res);
  assert.ok(cookie && cookie.length > 'svc_admin='.length, 'a cookie was set');
  return cookie;
}

/** The JSON body of a response with the expected status. */
export async function json<T = Record<string, unknown>>(res: Response, status = 200): Promise<T> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  return JSON.parse(text) as T;
}
