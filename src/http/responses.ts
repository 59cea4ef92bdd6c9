/**
 * Proxy-originated answers: the error envelope, 405, health, preflight.
 * SPEC "Error envelope", "Errors" (first paragraph), "Route table" (health).
 */
import { type Refusal, statusOf } from './error_codes.ts';
import { textResponse } from './preread.ts';
import { applySecurityHeaders } from './security_headers.ts';

/** A JSON response with the security headers; `extra` headers are added. */
export function jsonResponse(
  status: number,
  body: unknown,
  extra: Record<string, string> = {},
): Response {
  const headers = applySecurityHeaders(new Headers(extra));
  headers.set('content-type', 'application/json; charset=utf-8');
  return textResponse(JSON.stringify(body), { status, headers });
}

/**
 * A refusal in the error envelope: `{errors:[{message, extensions:{code}}]}`
 * with the code's status and cache-control: no-store.
 */
export function refusalResponse(refused: Refusal): Response {
  const body = { errors: [{ message: refused.message, extensions: { code: refused.code } }] };
  return jsonResponse(statusOf(refused.code), body, {
    ...refused.headers,
    'cache-control': 'no-store',
  });
}

/** 405 with an allow header and an empty body (SPEC "Errors"). */
export function methodNotAllowed(allow: readonly string[]): Response {
  const headers = applySecurityHeaders(new Headers({ allow: allow.join(', ') }));
  headers.set('cache-control', 'no-store');
  return new Response(null, { status: 405, headers });
}

/** The methods the health route takes (SPEC "Route table": GET /svc/healthz; HEAD beside GET). */
export const HEALTH_METHODS = ['GET', 'HEAD'] as const;

/**
 * The health route, the one place every host answers it from (SPEC "Route
 * table" health row, "Errors" 405 rule): GET is 200 {ok:true} or 503
 * {ok:false} with cache-control: no-store and nothing else in the body; HEAD
 * is the same status and headers with no body; any other method is 405 with
 * `allow: GET, HEAD` and an empty body. Security headers on every answer.
 */
export function healthResponse(method: string, ok: boolean): Response {
  if (method !== 'GET' && method !== 'HEAD') return methodNotAllowed(HEALTH_METHODS);
  const response = jsonResponse(ok ? 200 : 503, { ok }, { 'cache-control': 'no-store' });
  if (method === 'GET') return response;
  return new Response(null, { status: response.status, headers: response.headers });
}

/** A refused WebSocket upgrade: plain HTTP with a short text body (SPEC "Checks before any route" 5). */
export function plainResponse(status: number, text: string): Response {
  const headers = applySecurityHeaders(
    new Headers({ 'content-type': 'text/plain; charset=utf-8' }),
  );
  headers.set('cache-control', 'no-store');
  return textResponse(text, { status, headers });
}
