/**
 * The publish queue's answers: JSON with cache-control: no-store, refusals in the error envelope
 * (the registry's status, or the database's own 4xx for a mapped hint: SPEC "Database hint
 * mapping"), and the capped JSON body reader (SPEC "Ceilings": JSON route body 2 MiB, 413
 * RequestTooLarge).
 */
import type { RequestState } from '../../http/request_state.ts';
import { databaseRefusal } from '../../backend/hints.ts';
import type { RpcResult } from '../../backend/rpc.ts';
import { readCappedText, tooLarge } from '../../http/body.ts';
import { type ErrorCode, refusal } from '../../http/error_codes.ts';
import { nestsDeeperThan, tooDeepSentence } from '../../http/json_depth.ts';
import { jsonResponse, refusalResponse } from '../../http/responses.ts';

/** 200 (or `status`) with a JSON body, cache-control: no-store, the security headers and CORS. */
export function ok(body: unknown, cors: Record<string, string>, status = 200): Response {
  return jsonResponse(status, body, { ...cors, 'cache-control': 'no-store' });
}

/** A refusal of the registry, with its own status. */
export function refuse(
  code: ErrorCode,
  message: string,
  cors: Record<string, string> = {},
  headers: Record<string, string> = {},
): Response {
  return refusalResponse(refusal(code, message, { ...cors, ...headers }));
}

/**
 * A failed svc_* call as the route answers it: a 4xx with its own status and the hint's code
 * (an unlisted hint: BotRequestRefused, 'That is not allowed'); a 5xx or no answer: 503
 * ProxyAuthUnavailable.
 */
export function refuseDatabase(result: RpcResult, cors: Record<string, string>): Response {
  const mapped = databaseRefusal(result);
  return jsonResponse(
    mapped.status,
    { errors: [{ message: mapped.message, extensions: { code: mapped.code } }] },
    { ...cors, 'cache-control': 'no-store' },
  );
}

/** A JSON body (`undefined` for an empty one), or the answer refusing it. */
export type JsonBody = { value: unknown } | { refused: Response };

/**
 * Reads the body under `limit` bytes: past it 413 RequestTooLarge with connection: close; not
 * JSON: 400 InvalidRequest naming `what`; nested deeper than `maxDepth` levels (jsonMaxDepth;
 * never parsed then, src/http/json_depth.ts): 400 InvalidRequest.
 */
export async function readJson(
  request: Request,
  state: RequestState,
  limit: number,
  what: string,
  cors: Record<string, string>,
  maxDepth: number,
): Promise<JsonBody> {
  const read = await readCappedText(request, state, limit);
  // past the ceiling 413 RequestTooLarge; past the memory budget 503 ProxyBusy
  if ('refused' in read) {
    const { code, message, headers } = read.refused;
    return {
      refused: code === 'ProxyBusy'
        ? refuse(code, message, cors, headers)
        : refusalResponse(tooLarge(limit)),
    };
  }
  if (read.text.trim() === '') return { value: undefined };
  if (nestsDeeperThan(read.text, maxDepth)) {
    return { refused: refuse('InvalidRequest', tooDeepSentence('The body', maxDepth), cors) };
  }
  try {
    return { value: JSON.parse(read.text) };
  } catch {
    return { refused: refuse('InvalidRequest', `The body is not ${what}`, cors) };
  }
}

/** True for a plain JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
