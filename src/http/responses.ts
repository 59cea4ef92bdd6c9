/**
 * Proxy-originated answers: the error envelope, 405, health, preflight.
 * SPEC "Error envelope", "Errors" (first paragraph), "Route table" (health).
 */
import { type Refusal, statusOf } from './error_codes.ts';
import { applySecurityHeaders } from './security_headers.ts';

/** A JSON response with the security headers; `extra` headers are added. */
export function jsonResponse(
  status: number,
  body: unknown,
  extra: Record<string, string> = {},
): Response {
  const headers = applySecurityHeaders(new Headers(extra));
  headers.set('content-type', 'application/json; charset=utf-8');
  return new Response(JSON.stringify(body), { status, headers });
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

/** Health: 200 {ok:true} or 503 {ok:false}, cache-control: no-store, nothing else in the body. */
export function healthResponse(ok: boolean): Response {
  return jsonResponse(ok ? 200 : 503, { ok }, { 'cache-control': 'no-store' });
}

/** A refused WebSocket upgrade: plain HTTP with a short text body (SPEC "Checks before any route" 5). */
export function plainResponse(status: number, text: string): Response {
  const headers = applySecurityHeaders(
    new Headers({ 'content-type': 'text/plain; charset=utf-8' }),
  );
  headers.set('cache-control', 'no-store');
  return new Response(text, { status, headers });
}
