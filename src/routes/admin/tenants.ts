/**
 * GET /tenants, POST and DELETE /grants: the app's own accounts in the session module's database
 * (SPEC "Admin panel: /svc/admin"; admin rows of "Errors"; "WebSocket close codes" 4401
 * Unauthorized "the admin panel removed this socket's bot").
 *
 * - No database (gate off, or no BACKEND_SERVICE_ROLE_KEY): 500 ProxyAuthMisconfigured.
 * - The database not answering (or a 5xx): 503 AdminDatabaseUnavailable; a 4xx with a hint is
 *   passed on with its own status (bot_not_found → 404 AdminBotNotFound; other hints as SPEC
 *   "Database hint mapping").
 * - A revoke ends that account's live sockets holding the bot with 4401 Unauthorized and makes
 *   this process's gate forget the account's cached bot sets at once. Other processes learn it
 *   from the shared limits' revocation feed within 2 s (src/shared_limits/sync.ts), or, with
 *   shared limits off, when their gate cache lapses (30 s). `socketsClosed` counts this
 *   process's sockets only.
 */
import { databaseRefusal } from '../../backend/hints.ts';
import type { RpcResult } from '../../backend/rpc.ts';
import { authMisconfigured } from '../../admission/gate.ts';
import { refusalResponse } from '../../http/responses.ts';
import { ok, readJsonBody, refuse, refuseWithStatus, stringField } from './answers.ts';
import { type AdminRequest, DB_TIMEOUT_MS } from './context.ts';
import type { AdminGrantAnswer, AdminRevokeAnswer, AdminTenants } from './types.ts';

/** The answer for a failed database call (status 0 or >= 400). */
export function databaseFailed(result: RpcResult): Response {
  if (result.status === 0 || result.status >= 500) {
    return refuse('AdminDatabaseUnavailable', 'The database did not answer; try again shortly');
  }
  if (result.error?.hint === 'bot_not_found') {
    return refuse('AdminBotNotFound', 'No such bot is recorded');
  }
  const mapped = databaseRefusal(result);
  return refuseWithStatus(mapped.status, mapped.code, mapped.message);
}

function noDatabase(): Response {
  return refusalResponse(authMisconfigured());
}

/** GET /tenants → {@link AdminTenants}. */
export async function tenants({ ctx }: AdminRequest): Promise<Response> {
  if (!ctx.db) return noDatabase();
  const result = await ctx.db.call('svc_admin_tenants', {}, DB_TIMEOUT_MS);
  if (result.status !== 200) return databaseFailed(result);
  const data = result.data as AdminTenants | null;
  if (!data || !Array.isArray(data.accounts)) {
    return refuse('AdminDatabaseUnavailable', 'The database answered something unexpected');
  }
  return ok({ accounts: data.accounts, truncated: data.truncated === true } satisfies AdminTenants);
}

const incomplete = () =>
  refuse('AdminGrantIncomplete', 'A grant names one bot (botId) and one account (userId)');

/** POST /grants {botId, userId} → {@link AdminGrantAnswer}. */
export async function grant({ ctx, request, state }: AdminRequest): Promise<Response> {
  const body = await readJsonBody({ ctx, request, state });
  if ('refused' in body) return body.refused;
  const botId = stringField(body.value, 'botId');
  const userId = stringField(body.value, 'userId');
  if (!botId || !userId) return incomplete();
  if (!ctx.db) return noDatabase();
  const result = await ctx.db.call(
    'svc_admin_grant',
    { p_bot_id: botId, p_user_id: userId },
    DB_TIMEOUT_MS,
  );
  if (result.status !== 200) return databaseFailed(result);
  const answer = result.data as AdminGrantAnswer;
  // the account's cached bot set lacks the bot until it is asked again
  ctx.core.gate.forget?.(answer.userId);
  return ok(answer);
}

/** DELETE /grants?botId=&userId= → {@link AdminRevokeAnswer}. */
export async function revoke({ ctx, request }: AdminRequest): Promise<Response> {
  const query = new URL(request.url).searchParams;
  const botId = query.get('botId')?.trim();
  const userId = query.get('userId')?.trim();
  await request.body?.cancel().catch(() => {});
  if (!botId || !userId) return incomplete();
  if (!ctx.db) return noDatabase();
  const result = await ctx.db.call(
    'svc_admin_revoke',
    { p_bot_id: botId, p_user_id: userId },
    DB_TIMEOUT_MS,
  );
  if (result.status !== 200) return databaseFailed(result);
  const row = result.data as { userId: string; revoked: boolean };
  ctx.core.gate.forget?.(row.userId);
  const socketsClosed = ctx.core.revocations.revoke(row.userId, botId);
  const answer: AdminRevokeAnswer = {
    botId,
    userId: row.userId,
    revoked: row.revoked,
    socketsClosed,
  };
  return ok(answer);
}
