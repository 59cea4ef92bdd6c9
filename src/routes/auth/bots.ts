/**
 * PATCH and DELETE <authPath>/bots/<id> (SPEC "Route table", "Sign-up and bot routes").
 * Rename: database first, then upstream; an upstream refusal restores the old name (502
 * BotRenameFailed). Delete: both guards first (fail closed: 503 BotDeleteUnavailable), then
 * upstream, then the database; an upstream refusal removes nothing (502 BotDeleteFailed).
 */
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
  const renamed = await callerRpc(req, caller.jwt, 'svc_bot_rename', {
    p_bot_id: botId,
    p_name: name,
  });
  if (!ok(renamed)) return fromDatabase(renamed);
  const upstream = await renameUpstream(upstreamCall(req.ctx), botId, name);
  if (upstream.kind === 'done') {
    return { status: 200, body: { bot: { id: botId, name } } satisfies RenameBotAnswer };
  }
  const restored = await callerRpc(req, caller.jwt, 'svc_bot_rename_restore', {
    p_bot_id: botId,
    p_name: name,
  });
  return refuse(
    'BotRenameFailed',
    ok(restored)
      ? 'The upstream refused the rename; the previous name was kept'
      : 'The upstream refused the rename, and the previous name could not be written back yet',
  );
}

/** DELETE bots/<id>. */
export async function deleteBot(req: AuthRequest, botId: string): Promise<Answer> {
  const caller = callerJwt(req);
  if (!('jwt' in caller)) return caller;
  const missing = tokenMissing(req.ctx);
  if (missing) return missing;
  const guarded = await guards(req, caller.jwt, botId);
  if (guarded) return guarded;
  const upstream = await deleteUpstream(upstreamCall(req.ctx), botId);
  if (upstream.kind !== 'done') {
    return refuse('BotDeleteFailed', 'The upstream refused to delete the bot; nothing was removed');
  }
  botSetChanged(req, caller);
  const forgotten = await callerRpc(req, caller.jwt, 'svc_bot_forget', { p_bot_id: botId });
  if (!ok(forgotten)) {
    const answer = fromDatabase(forgotten);
    if ('refused' in answer) {
      answer.refused.message =
        `The bot was deleted upstream, but the database did not record it (${answer.refused.message}); delete it again to finish`;
    }
    return answer;
  }
  return { status: 200, body: { deleted: botId } satisfies DeleteBotAnswer };
}

/**
 * The two delete guards: the caller's last openable bot (svc_bot_delete_check), the last bot of
 * the deployment workspace (SvcWorkspaceBots). Either unanswerable: 503 BotDeleteUnavailable.
 */
async function guards(req: AuthRequest, jwt: string, botId: string): Promise<Answer | null> {
  const unavailable = (what: string) =>
    refuse('BotDeleteUnavailable', `The delete guards could not be checked (${what}); try again`);
  const checked = await callerRpc(req, jwt, 'svc_bot_delete_check', { p_bot_id: botId });
  if (!ok(checked)) {
    if (checked.status >= 400 && checked.status < 500) return fromDatabase(checked);
    return unavailable('database');
  }
  if ((checked.data as { lastOpenable?: unknown })?.lastOpenable !== false) {
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
  return null;
}
