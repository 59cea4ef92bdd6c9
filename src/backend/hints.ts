/**
 * SPEC "Database hint mapping": the svc_* database functions raise a machine hint; a 4xx from
 * the database is passed on with its own status and message, a 5xx (or no answer) becomes 503
 * ProxyAuthUnavailable, and a 4xx whose hint is not listed came from the database layer itself
 * and has its message replaced with 'That is not allowed'.
 *
 * The route modules over the backend (provision, bots, recovery-link, publishing) render the
 * result with its own status; the session gate does not use this table (SPEC "Authentication" 2
 * fixes its answers: 401 AuthSessionRequired, anything else 503 ProxyAuthUnavailable).
 */
import type { RpcResult } from './rpc.ts';

/** The spec's table: hint → code. Anything else: BotRequestRefused. */
export const HINT_CODES = {
  unauthenticated: 'AuthSessionRequired',
  not_admin: 'BotAdminRequired',
  tenant_not_found: 'BotWorkspaceMissing',
  tenant_ambiguous: 'BotWorkspaceAmbiguous',
  bot_not_found: 'BotNotFound',
  bad_name: 'BadBotName',
  name_too_long: 'BadBotName',
  member_not_found: 'MemberNotFound',
  bot_already_attached: 'BotAlreadyAttached',
  bot_still_upstream: 'BotStillUpstream',
  bad_bot_id: 'BadBotId',
  deployment_bot_cap: 'BotLimitReached',
  workspace_bot_cap: 'BotLimitReached',
  post_not_found: 'PostNotFound',
  not_claimed: 'PostNotClaimed',
  bad_secret: 'NotAllowed',
  bad_kind: 'BadPost',
  bad_media: 'BadPost',
  bad_patch: 'BadPost',
  bad_status: 'BadPost',
  bad_time: 'BadPost',
  bad_url: 'BadPost',
  insecure_url: 'BadPost',
  bad_permalink: 'BadPost',
  caption_too_long: 'CaptionTooLong',
  not_member: 'RecoveryTargetNotMember',
  rank: 'NotEnoughPermissions',
  cross_tenant: 'RecoveryTargetCrossTenant',
} as const;

/** The code for a hint outside the table. */
export const UNLISTED_HINT_CODE = 'BotRequestRefused';

/**
 * SPEC "Recovery-link route": NotEnoughPermissions is also the fallback for an unmapped refusal
 * from svc_recovery_authorize (the route passes it as `unlisted` to `databaseRefusal`).
 */
export const RECOVERY_UNLISTED_CODE = 'NotEnoughPermissions';

/** What an unlisted hint becomes: BotRequestRefused, or the recovery route's fallback. */
export type UnlistedCode = typeof UNLISTED_HINT_CODE | typeof RECOVERY_UNLISTED_CODE;

/** A code this table can give. */
export type DatabaseCode =
  | (typeof HINT_CODES)[keyof typeof HINT_CODES]
  | typeof UNLISTED_HINT_CODE
  | 'ProxyAuthUnavailable';

/** A database refusal as the route answers it: its status, code and sentence. */
export interface DatabaseRefusal {
  /** The database's own 4xx, or 503 for a 5xx or no answer. */
  status: number;
  code: DatabaseCode;
  message: string;
}

/** The sentence for a 4xx whose hint the table does not list. */
export const DATABASE_LAYER_MESSAGE = 'That is not allowed';

/**
 * Maps a failed RPC (status 0 or >= 400) to what the route answers (SPEC "Database hint
 * mapping"); a 4xx with an unlisted hint gets `unlisted` (default BotRequestRefused). A 2xx
 * result is not a refusal: callers check the status first.
 */
export function databaseRefusal(
  result: RpcResult,
  unlisted: UnlistedCode = UNLISTED_HINT_CODE,
): DatabaseRefusal {
  if (result.status < 400 || result.status >= 500) {
    return {
      status: 503,
      code: 'ProxyAuthUnavailable',
      message: 'The session backend is unavailable; try again shortly',
    };
  }
  const hint = result.error?.hint ?? '';
  const code = Object.hasOwn(HINT_CODES, hint)
    ? HINT_CODES[hint as keyof typeof HINT_CODES]
    : undefined;
  if (code === undefined) {
    return { status: result.status, code: unlisted, message: DATABASE_LAYER_MESSAGE };
  }
  return { status: result.status, code, message: result.error?.message || DATABASE_LAYER_MESSAGE };
}
