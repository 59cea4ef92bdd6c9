/**
 * One `connection: close` per answer in the Deno.serve handler (`deno task serve:parallel`,
 * serve_handler.ts). The core's oversize answers (SPEC "Size and capacity": 413 with connection:
 * close) carry the header; Deno.serve writes its own `connection: close` when the request itself
 * asked for it (`Connection: close` on HTTP/1.1, what Node's http client sends without an agent),
 * and then also writes the handler's, so the answer said it twice. When the request's Connection
 * header lists `close`, the handler's copy is left out and Deno's stands alone; otherwise the
 * handler's is the only one and stays.
 */
import { type SvcAnswer, toResponse } from '../../src/host_api.ts';

/** True when the request's Connection header lists the `close` token (case-insensitive). */
export function requestCloses(request: Request): boolean {
  const value = request.headers.get('connection');
  return value !== null && value.split(',').some((token) => token.trim().toLowerCase() === 'close');
}

/**
 * `headers` (lower-case names, as the core's answer) without `connection` when the request
 * already closes; the same object otherwise (no copy on the common path, which has no
 * connection header).
 */
export function plainHeadersFor<H extends Readonly<Record<string, string | string[]>>>(
  request: Request,
  headers: H,
): H {
  if (headers.connection === undefined || !requestCloses(request)) return headers;
  const { connection: _dropped, ...rest } = headers;
  return rest as unknown as H;
}

/** The Web Response Deno.serve writes for the core's `answer`, its `connection` as above. */
export function responseFor(request: Request, answer: SvcAnswer): Response {
  return toResponse({ ...answer, headers: plainHeadersFor(request, answer.headers) });
}
