/**
 * Proxy-originated answers: the error envelope, 405, health, preflight.
 * SPEC "Error envelope", "Errors" (first paragraph), "Route table" (health).
 */
import { type PlainAnswer, toResponse } from './answer.ts';
import { type Refusal, statusOf } from './error_codes.ts';
import { withSecurityRecord } from './security_headers.ts';

/** The JSON content-type of every answer the proxy writes itself. */
const JSON_TYPE = 'application/json; charset=utf-8';

/** A JSON answer with the security headers; `extra` headers are added (lower-case names). */
export function jsonAnswer(
  status: number,
  body: unknown,
  extra: Record<string, string> = {},
): PlainAnswer {
  const headers = withSecurityRecord(extra);
  headers['content-type'] = JSON_TYPE;
  return { status, headers, body: JSON.stringify(body) };
}

/** {@link jsonAnswer} as a Web Response. */
export function jsonResponse(
  status: number,
  body: unknown,
  extra: Record<string, string> = {},
): Response {
  return toResponse(jsonAnswer(status, body, extra));
}

/**
 * A refusal in the error envelope: `{errors:[{message, extensions:{code}}]}`
 * with the code's status and cache-control: no-store; marked `refusal` (its media type is
 * negotiated on the GraphQL route).
 */
export function refusalAnswer(refused: Refusal): PlainAnswer {
  const body = { errors: [{ message: refused.message, extensions: { code: refused.code } }] };
  const answer = jsonAnswer(statusOf(refused.code), body, {
    ...refused.headers,
    'cache-control': 'no-store',
  });
  return { ...answer, refusal: true };
}

/**
 * Whether `answer` is a refusal {@link refusalAnswer} built (not an upstream answer passed on):
 * the GraphQL route negotiates the media type of these (src/http/media_type.ts).
 */
export function isRefusalAnswer(answer: PlainAnswer): boolean {
  return answer.refusal === true;
}

/** {@link refusalAnswer} as a Web Response. */
export function refusalResponse(refused: Refusal): Response {
  return toResponse(refusalAnswer(refused));
}

/** 405 with an allow header and an empty body (SPEC "Errors"). */
export function methodNotAllowedAnswer(allow: readonly string[]): PlainAnswer {
  const headers = withSecurityRecord({ allow: allow.join(', ') });
  headers['cache-control'] = 'no-store';
  return { status: 405, headers, body: null };
}

/** {@link methodNotAllowedAnswer} as a Web Response. */
export function methodNotAllowed(allow: readonly string[]): Response {
  return toResponse(methodNotAllowedAnswer(allow));
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

/**
 * A plain-text answer with the security headers, never cached: a refused WebSocket upgrade (SPEC
 * "Checks before any route" 5) and a host's own 400/404 answers. `extra` headers are added (e.g.
 * retry-after).
 */
export function plainAnswer(
  status: number,
  text: string,
  extra: Record<string, string> = {},
): PlainAnswer {
  const headers = withSecurityRecord({ 'content-type': 'text/plain; charset=utf-8', ...extra });
  headers['cache-control'] = 'no-store';
  return { status, headers, body: text };
}

/** {@link plainAnswer} as a Web Response. */
export function plainResponse(status: number, text: string): Response {
  return toResponse(plainAnswer(status, text));
}
