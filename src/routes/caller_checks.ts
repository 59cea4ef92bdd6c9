/**
 * The checks before any route (SPEC "Checks before any route"): Host, then Origin, then the
 * preflight, around a route's answer. Every answer past the origin check carries the CORS headers
 * of a listed caller (3), the route's own 405 and the 500 of a route that throws included; the
 * GraphQL route's answers come in the media type its Accept asks for (src/http/media_type.ts,
 * docs/routes.md "Refusals and their media type").
 */
import type { ResolvedConfig } from '../config/resolved.ts';
import { noteRefusedCaller, type RefusedValueLog } from '../observability/refused_values.ts';
import { isPlainAnswer, type PlainAnswer, type Routed } from '../http/answer.ts';
import { refusal } from '../http/error_codes.ts';
import {
  checkHost,
  checkOrigin,
  corsHeaders,
  PREFLIGHT_HEADERS,
  withCors,
} from '../http/host_origin.ts';
import { negotiatedRefusal, negotiatedResult } from '../http/media_type.ts';
import type { SvcRequest } from '../http/request.ts';
import { isRefusalAnswer, refusalAnswer } from '../http/responses.ts';
import { withSecurityRecord } from '../http/security_headers.ts';

/** Whether `path` is `prefix` or below it. */
export function under(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/** What the checks read: the configuration, the log, the bounded log of refused values. */
export interface CallerChecks {
  readonly config: ResolvedConfig;
  readonly log: (line: string) => void;
  readonly refusedValues: RefusedValueLog;
}

/** An answer of the GraphQL route in the media type its Accept asks for; any other as it is. */
function negotiated<T extends Routed>(
  config: ResolvedConfig,
  request: SvcRequest,
  path: string,
  answer: T,
): T {
  if (path !== config.httpPath || !isPlainAnswer(answer)) return answer;
  const accept = request.headers.get('accept');
  if (isRefusalAnswer(answer)) return negotiatedRefusal(answer, accept) as T;
  return negotiatedResult(answer, accept) as T;
}

/**
 * Host and origin checks (refused: 403, its value logged), the preflight (204), then
 * `routed(cors)`; a route that throws answers 500 ProxyHandlerFailed.
 */
export async function checked<T extends Routed>(
  checks: CallerChecks,
  request: SvcRequest,
  path: string,
  routed: (cors: Record<string, string>) => T | Promise<T>,
): Promise<T | PlainAnswer> {
  const { config } = checks;
  const adminOnly = under(path, config.adminPath);
  const callerRefused = checkHost(config, request) ?? checkOrigin(config, request, adminOnly);
  if (callerRefused) {
    noteRefusedCaller(checks.refusedValues, callerRefused.code, request, adminOnly);
    return negotiated(config, request, path, refusalAnswer(callerRefused));
  }
  const cors = corsHeaders(config, request);
  if (request.method === 'OPTIONS') {
    return {
      status: 204,
      headers: withSecurityRecord({ ...cors, ...PREFLIGHT_HEADERS }),
      body: null,
    };
  }
  let answer: T | PlainAnswer;
  try {
    answer = await routed(cors);
  } catch (error) {
    checks.log(`svc-gateway: handler failed: ${(error as Error)?.name ?? 'error'}`);
    answer = refusalAnswer(
      refusal('ProxyHandlerFailed', 'The proxy failed to handle this request'),
    );
  }
  return withCors(negotiated(config, request, path, answer), cors);
}
