/**
 * PATCH and DELETE <authPath>/bots/<id> (SPEC "Route table", "Sign-up and bot routes").
 * Rename: the database first (svc_bot_rename, as the caller: may this caller give the bot this
 * name), then upstream, then the name recorded (svc_bot_renamed, service role); an upstream
 * refusal leaves the old name in place (502 BotRenameFailed). Delete: both guards first (fail
 * closed: 503 BotDeleteUnavailable), then upstream, then the database (svc_bot_upstream_deleted
 * as the service role, then svc_bot_forget as the caller); an upstream refusal removes nothing
 * (502 BotDeleteFailed). The service-role steps keep a user who calls the database directly from
 * making the row and the upstream disagree (docs/backend.md "Who may call each function").
 */
import type { RpcResult } from '../../backend/rpc.ts';
import { DEFAULTS } from '../../config/defaults.ts';
import {
  deleteBot as deleteUpstream,
  fetchWorkspaceBots,
  renameBot as renameUpstream,
} from '../../upstream/service_operations.ts';
import {
  type Answer,
  type AuthRequest,
  botSetChanged,
  callerJwt,
  callerRpc,
  fromDatabase,
  ok,
  readJsonObject,
  refuse,
  serviceRpc,
  tokenMissing,
  upstreamCall,
} from './context.ts';
import { botName } from './provision.ts';
import type { DeleteBotAnswer, RenameBotAnswer } from './types.ts';

/** PATCH bots/<id> {name}. */
export async function renameBot(req: AuthRequest, botId: string): Promise<Answer> {
  const caller = callerJwt(req);
  if (!('jwt' in caller)) return caller;
  const body = await readJsonObject(req, false);
  if (!('value' in body)) return body;
  const name = botName(body.value);
  if (typeof name !== 'string') return name;
  const missing = tokenMissing(req.ctx);
  if (missing) return missing;
  const checked = await callerRpc(req, caller.jwt, 'svc_bot_rename', {
    p_bot_id: botId,
    p_name: name,
  });
  if (!ok(checked)) return fromDatabase(checked);
  const upstream = await renameUpstream(upstreamCall(req.ctx), botId, name);
  if (upstream.kind !== 'done') {
    return refuse('BotRenameFailed', 'The upstream refused the rename; the previous name was kept');
  }
  const recorded = await serviceRpc(req, 'svc_bot_renamed', { p_bot_id: botId, p_name: name });
  if (!ok(recorded)) {
    return afterUpstream(
      recorded,
      'The bot was renamed upstream, but the database did not record it',
      'rename it again to finish',
    );
  }
  return { status: 200, body: { bot: { id: botId, name } } satisfies RenameBotAnswer };
}

/**
 * A database step that failed after the upstream changed: the database's refusal, its message
 * saying what happened upstream and how to finish (the same call again).
 */
function afterUpstream(result: RpcResult, what: string, finish: string): Answer {
  const answer = fromDatabase(result);
  if ('refused' in answer) {
    answer.refused.message = `${what} (${answer.refused.message}); ${finish}`;
  }
  return answer;
}

/** DELETE bots/<id>. */
export async function deleteBot(req: AuthRequest, botId: string): Promise<Answer> {
  const caller = callerJwt(req);
  if (!('jwt' in caller)) return caller;
  const missing = tokenMissing(req.ctx);
  if (missing) return missing;
  const guarded = await guards(req, caller.jwt, botId);
  if (!('upstreamDeleted' in guarded)) return guarded;
  if (!guarded.upstreamDeleted) {
    const upstream = await deleteUpstream(upstreamCall(req.ctx), botId);
    if (upstream.kind !== 'done') {
      return refuse(
        'BotDeleteFailed',
        'The upstream refused to delete the bot; nothing was removed',
      );
    }
    botSetChanged(req, caller);
    const recorded = await serviceRpc(req, 'svc_bot_upstream_deleted', { p_bot_id: botId });
    if (!ok(recorded)) {
      return afterUpstream(recorded, DELETED_UPSTREAM, 'delete it again to finish');
    }
  }
  const forgotten = await callerRpc(req, caller.jwt, 'svc_bot_forget', { p_bot_id: botId });
  if (!ok(forgotten)) {
    return afterUpstream(forgotten, DELETED_UPSTREAM, 'delete it again to finish');
  }
  return { status: 200, body: { deleted: botId } satisfies DeleteBotAnswer };
}

const DELETED_UPSTREAM = 'The bot was deleted upstream, but the database did not record it';

/**
 * The two delete guards: the caller's last openable bot (svc_bot_delete_check), the last bot of
 * the deployment workspace (SvcWorkspaceBots). Either unanswerable: 503 BotDeleteUnavailable.
 * A bot whose upstream delete is already recorded (an earlier DELETE stopped after it) needs no
 * guard: `upstreamDeleted` tells the caller to forget the row only.
 */
async function guards(
  req: AuthRequest,
  jwt: string,
  botId: string,
): Promise<{ upstreamDeleted: boolean } | Answer> {
  const unavailable = (what: string) =>
    refuse('BotDeleteUnavailable', `The delete guards could not be checked (${what}); try again`);
  const checked = await callerRpc(req, jwt, 'svc_bot_delete_check', { p_bot_id: botId });
  if (!ok(checked)) {
    if (checked.status >= 400 && checked.status < 500) return fromDatabase(checked);
    return unavailable('database');
  }
  const check = checked.data as { lastOpenable?: unknown; upstreamDeleted?: unknown } | null;
  if (check?.upstreamDeleted === true) return { upstreamDeleted: true };
  if (check?.lastOpenable !== false) {
    return refuse('LastBotInWorkspace', 'This is your last bot; it cannot be deleted');
  }
  const { config } = req.ctx.core;
  const workspaces = await fetchWorkspaceBots(
    req.ctx.core.fetch,
    config.upstream,
    config.token!,
    config.fence?.timeoutMs ?? DEFAULTS.fenceTimeoutMs,
  );
  if (workspaces === null) return unavailable('upstream');
  const home = workspaces.find((w) => w.id === config.workspaceId);
  if (home && home.botIds.length === 1 && home.botIds[0] === botId) {
    return refuse('LastBotInWorkspace', 'This is the last bot of the deployment workspace');
  }
  return { upstreamDeleted: false };
}
