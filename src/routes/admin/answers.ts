/**
 * The panel's answers: JSON with cache-control: no-store, refusals in the error envelope (with
 * the registry's status, or the database's own status for a mapped hint), and the capped JSON
 * body reader (SPEC "Ceilings": admin body 64 KiB, /session 4 KiB, 413 AdminBodyTooLarge).
 */
import { readCappedText } from '../../http/body.ts';
import { DEFAULTS } from '../../config/defaults.ts';
import type { AdminRequest } from './context.ts';
import { type ErrorCode, type Refusal, refusal } from '../../http/error_codes.ts';
import { nestsDeeperThan, tooDeepSentence } from '../../http/json_depth.ts';
import { jsonResponse, refusalResponse } from '../../http/responses.ts';

/** An admin workspace or bot id (SPEC "Other records"). */
export const ADMIN_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** 200 (or `status`) with a JSON body, cache-control: no-store and the security headers. */
export function ok(body: unknown, extra: Record<string, string> = {}, status = 200): Response {
  return jsonResponse(status, body, { ...extra, 'cache-control': 'no-store' });
}

/** A refusal of the registry (its own status). */
export function refuse(code: ErrorCode, message: string, headers?: Record<string, string>) {
  return refusalResponse(refusal(code, message, headers));
}

/** The envelope with an explicit status (a database 4xx passed on with its own status). */
export function refuseWithStatus(status: number, code: string, message: string): Response {
  return jsonResponse(status, { errors: [{ message, extensions: { code } }] }, {
    'cache-control': 'no-store',
  });
}

/** A JSON body, or the refusal to answer. `undefined` value: empty body. */
export type JsonBody = { value: unknown } | { refused: Response };

/**
 * Reads the panel request's body under `limit` bytes (default DEFAULTS.adminBodyBytes): past it
 * 413 AdminBodyTooLarge with connection: close (nothing else looked at); an empty body is
 * `undefined`; not JSON, or nested deeper than the configuration's jsonMaxDepth (never parsed
 * then, src/http/json_depth.ts), is 400 InvalidRequest.
 */
export async function readJsonBody(
  { ctx, request, state }: Pick<AdminRequest, 'ctx' | 'request' | 'state'>,
  limit: number = DEFAULTS.adminBodyBytes,
): Promise<JsonBody> {
  const maxDepth = ctx.core.config.jsonMaxDepth;
  // counted in the memory budget, never refused for it: the panel always answers
  const read = await readCappedText(request, state, limit, true);
  if ('refused' in read) return { refused: bodyTooLarge(limit) };
  if (read.text.trim() === '') return { value: undefined };
  if (nestsDeeperThan(read.text, maxDepth)) {
    return { refused: refuse('InvalidRequest', tooDeepSentence('The body', maxDepth)) };
  }
  try {
    return { value: JSON.parse(read.text) };
  } catch {
    return { refused: refuse('InvalidRequest', 'The body is not JSON') };
  }
}

/** 413 AdminBodyTooLarge for a ceiling of `limit` bytes. */
export function bodyTooLarge(limit: number): Response {
  const refused: Refusal = refusal('AdminBodyTooLarge', `The request body is over ${limit} bytes`, {
    connection: 'close',
  });
  return refusalResponse(refused);
}

/** A non-blank string field of a JSON object, trimmed; else null. */
export function stringField(body: unknown, name: string): string | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}
