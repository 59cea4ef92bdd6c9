/**
 * GET /svc/metrics (not a spec route; docs/operations.md "Metrics"): the registry's exposition
 * text.
 *
 * Access, checked before anything is rendered:
 * - METRICS_TOKEN set: every caller, loopback included, must send `Authorization: Bearer
 *   <METRICS_TOKEN>` (behind a reverse proxy on the same machine every caller looks like
 *   loopback, so a token is never waived).
 * - METRICS=1 without a token: loopback callers only (127.0.0.0/8, ::1, ::ffff:127.x); a host
 *   that reports no peer address gets nobody in.
 * Otherwise 403 MetricsNotAllowed. GET and HEAD only (405 with allow). Never open to the
 * internet by default; the answer carries no token, session id or bot id.
 */
import { timingSafeEqual } from 'node:crypto';
import type { ResolvedConfig } from '../config/resolved.ts';
import { refusal } from '../http/error_codes.ts';
import { methodNotAllowed, plainResponse, refusalResponse } from '../http/responses.ts';

/** Whether `address` (an IP as hosts report it) is a loopback address. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const bare = address.replace(/^::ffff:/i, '');
  return bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

function sameSecret(given: string, expected: string): boolean {
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(expected);
  return a.byteLength === b.byteLength && timingSafeEqual(a, b);
}

/** Whether this caller may read the metrics (the rules above). */
export function metricsAllowed(
  config: ResolvedConfig,
  request: Request,
  remoteAddress: string | undefined,
): boolean {
  const token = config.metrics.token;
  if (token === undefined) return isLoopbackAddress(remoteAddress);
  const header = request.headers.get('authorization') ?? '';
  const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
  return match !== null && sameSecret(match[1], token);
}

/**
 * The answer to a request on the metrics path: `exposition()` (this process's text, or the
 * deployment's, docs/operations.md "Metrics of a worker deployment") once access is granted.
 */
export function metricsResponse(
  config: ResolvedConfig,
  exposition: () => Promise<string>,
  request: Request,
  remoteAddress: string | undefined,
): Response | Promise<Response> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return methodNotAllowed(['GET', 'HEAD']);
  }
  if (!metricsAllowed(config, request, remoteAddress)) {
    return refusalResponse(refusal('MetricsNotAllowed', 'The metrics are not open to this caller'));
  }
  return exposition().then((text) => {
    const response = plainResponse(200, text);
    response.headers.set('content-type', 'text/plain; version=0.0.4; charset=utf-8');
    if (request.method === 'GET') return response;
    return new Response(null, { status: 200, headers: response.headers });
  });
}
