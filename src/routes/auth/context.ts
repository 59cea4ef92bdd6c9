/**
 * What the /svc/auth handlers share: the backend clients (as the caller, as the service role),
 * the upstream call settings, and the answers (JSON with CORS, the error envelope with a
 * registry status or the database's own status). SPEC "Sign-up and bot routes", "Database hint
 * mapping", "Recovery-link route".
 */
import type { RequestState } from '../../http/request_state.ts';
import { type AuthAdmin, createAuthAdmin } from '../../backend/auth_admin.ts';
import { readSessionToken } from '../../admission/session_token.ts';
import { databaseRefusal, type UnlistedCode } from '../../backend/hints.ts';
import { type BackendRpc, createBackendRpc, type RpcResult } from '../../backend/rpc.ts';
import { DEFAULTS } from '../../config/defaults.ts';
import type { Core } from '../../core.ts';
import { readCappedText } from '../../http/body.ts';
import { nestsDeeperThan, tooDeepSentence } from '../../http/json_depth.ts';
import { type ErrorCode, type Refusal, statusOf } from '../../http/error_codes.ts';
import { jsonResponse } from '../../http/responses.ts';
import type { ServiceCall } from '../../upstream/service_operations.ts';

/** The per-proxy pieces of the auth routes. */
export interface AuthContext {
  core: Core;
  /** svc_* calls with the anon key as apikey and the caller's JWT as bearer. */
  asCaller: BackendRpc;
  /** svc_* calls with the service-role key. */
  asService: BackendRpc;
  /** The backend URL (GoTrue lives under `<url>/auth/v1`). */
  backendUrl: string;
  /** GoTrue's admin API with the service-role key (recovery links). */
  authAdmin: AuthAdmin;
}

/** Builds the context; null unless the gate is on with a service-role key (routes unmounted). */
export function authContext(core: Core): AuthContext | null {
  const { state, url, anonKey, serviceRoleKey } = core.config.auth;
  if (state !== 'on' || !url || !anonKey || !serviceRoleKey) return null;
  return {
    core,
    asCaller: createBackendRpc(url, anonKey, core.fetch),
    asService: createBackendRpc(url, serviceRoleKey, core.fetch),
    backendUrl: url,
    authAdmin: createAuthAdmin(url, serviceRoleKey, core.fetch),
  };
}

/** One request: the context, its CORS headers, and the caller's JWT once read. */
export interface AuthRequest {
  ctx: AuthContext;
  request: Request;
  /** The request's state from the door: its memory hold, a body read ahead. */
  state: RequestState;
  cors: Record<string, string>;
}

/** A route's answer before it becomes a Response: a body with status, or a refusal. */
export type Answer =
  | { status: number; body: unknown }
  | {
    refused: { status: number; code: string; message: string; headers?: Record<string, string> };
  };

/** The registry refusal `code` with `message`, as an Answer. */
export function refuse(code: ErrorCode, message: string): Answer {
  return { refused: { status: statusOf(code), code, message } };
}

/** A Refusal of the shared modules (body reading, session token), as an Answer. */
export function fromRefusal(refused: Refusal): Answer {
  const { code, message, headers } = refused;
  return { refused: { status: statusOf(code), code, message, ...(headers ? { headers } : {}) } };
}

/** A failed svc_* call through the hint table (a 401 without a listed hint is the session). */
export function fromDatabase(result: RpcResult, unlisted?: UnlistedCode): Answer {
  if (result.status === 401 && !result.error?.hint) {
    return refuse('AuthSessionRequired', 'The session was not accepted; sign in again');
  }
  return { refused: databaseRefusal(result, unlisted) };
}

/** The Response of an Answer: JSON or the error envelope, with CORS and cache-control: no-store. */
export function toResponse(answer: Answer, cors: Record<string, string>): Response {
  const headers = { ...cors, 'cache-control': 'no-store' };
  if ('refused' in answer) {
    const { status, code, message } = answer.refused;
    const body = { errors: [{ message, extensions: { code } }] };
    return jsonResponse(status, body, { ...answer.refused.headers, ...headers });
  }
  return jsonResponse(answer.status, answer.body, headers);
}

/**
 * The caller's JWT: refused with zero network calls for a missing bearer, an expired or
 * unreadable token, or another project's issuer (401 AuthSessionRequired).
 */
export function callerJwt(req: AuthRequest): { jwt: string; subject?: string } | Answer {
  const read = readSessionToken(
    req.request.headers.get('authorization'),
    `${req.ctx.backendUrl}/auth/v1`,
    Date.now(),
  );
  if ('code' in read) return fromRefusal(read);
  return { jwt: read.jwt, subject: read.subject };
}

/**
 * After the caller's bot set changed (a bot created or deleted): the gate drops its cached
 * verdicts for the caller, so the next request sees the change instead of waiting out the 30 s
 * cache. Other members of the workspace keep theirs until it expires.
 */
export function botSetChanged(req: AuthRequest, caller: { subject?: string }): void {
  if (caller.subject !== undefined) req.ctx.core.gate.forget?.(caller.subject);
}

/**
 * The JSON object body, read under the 2 MiB ceiling (413 RequestTooLarge). An empty body is
 * `{}` when `emptyOk`; anything else that is not a JSON object, or nests deeper than jsonMaxDepth
 * (never parsed then, src/http/json_depth.ts): 400 InvalidRequest.
 */
export async function readJsonObject(
  req: AuthRequest,
  emptyOk: boolean,
): Promise<{ value: Record<string, unknown> } | Answer> {
  const read = await readCappedText(req.request, req.state, DEFAULTS.jsonRouteBodyBytes);
  if ('refused' in read) return fromRefusal(read.refused);
  if (read.text.trim() === '' && emptyOk) return { value: {} };
  const maxDepth = req.ctx.core.config.jsonMaxDepth;
  if (nestsDeeperThan(read.text, maxDepth)) {
    return refuse('InvalidRequest', tooDeepSentence('The body', maxDepth));
  }
  try {
    const value = JSON.parse(read.text);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return { value };
  } catch {
    // fall through
  }
  return refuse('InvalidRequest', 'The body must be a JSON object');
}

/** A svc_* call as the caller. */
export function callerRpc(
  req: AuthRequest,
  jwt: string,
  fn: string,
  args: Record<string, unknown>,
) {
  return req.ctx.asCaller.call(fn, args, DEFAULTS.authRouteRpcTimeoutMs, jwt);
}

/** A svc_* call as the service role. */
export function serviceRpc(req: AuthRequest, fn: string, args: Record<string, unknown>) {
  return req.ctx.asService.call(fn, args, DEFAULTS.authRouteRpcTimeoutMs);
}

/** True for a 2xx RPC result. */
export function ok(result: RpcResult): boolean {
  return result.status >= 200 && result.status < 300;
}

/** The upstream call settings (the master token is checked present by the caller). */
export function upstreamCall(ctx: AuthContext): ServiceCall {
  const { config } = ctx.core;
  return {
    fetch: ctx.core.fetch,
    upstream: config.upstream,
    token: config.token ?? '',
    timeoutMs: config.timeoutMs,
  };
}

/** 500 ProxyTokenMissing when the master token is absent, else null. */
export function tokenMissing(ctx: AuthContext): Answer | null {
  if (ctx.core.config.token !== null) return null;
  return refuse('ProxyTokenMissing', `The master token (${ctx.core.config.tokenEnv}) is not set`);
}
