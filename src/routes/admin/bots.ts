/**
 * POST /bots, PATCH and DELETE /bots/<id> (GET is in upstream_reads.ts). SPEC "Admin panel:
 * /svc/admin" and the admin rows of "Errors"; documents and error mappings from facts.json
 * (SvcAdminCreateBot, SvcRenameBot, SvcDeleteBot, SvcAdminOverview for the delete guards).
 *
 * - Create: workspace and name required (422 AdminWorkspaceRequired / BadBotName); created
 *   upstream, then recorded (svc_admin_bot_record) when a database exists; a database failure
 *   deletes the bot upstream again and answers 503 AdminDatabaseUnavailable.
 * - Rename: database first (the old name kept), then upstream; an upstream refusal restores the
 *   name: 502 BotRenameFailed (404 AdminBotNotFound when the upstream has no such bot).
 * - Delete: the guards are read first (503 AdminUpstreamUnavailable when the upstream cannot be
 *   asked): the last bot of the deployment's own workspace is refused always (409
 *   LastBotInWorkspace), the last bot of another workspace without ?force=1 (409
 *   WorkspaceGoesWithIt); then upstream (502 BotDeleteFailed), then the records, whose grantees'
 *   sockets holding the bot end with 4401.
 */
import { DEFAULTS } from '../../config/defaults.ts';
import { SVC_ADMIN_CREATE_BOT, SVC_ADMIN_OVERVIEW } from '../../upstream/admin_operations.ts';
import {
  deleteBot as deleteUpstreamBot,
  renameBot as renameUpstreamBot,
  sendServiceOperation,
  type ServiceCall,
} from '../../upstream/service_operations.ts';
import { ADMIN_ID, ok, readJsonBody, refuse, stringField } from './answers.ts';
import { type AdminRequest, DB_TIMEOUT_MS } from './context.ts';
import { databaseFailed } from './tenants.ts';
import type { AdminBotAnswer, AdminBotDeleted } from './types.ts';
import { tokenMissing, upstreamFailed } from './upstream_reads.ts';

/** The one bound of a bot's name, the sign-up routes' too (svc_auth_check_name). */
const NAME_MAX = DEFAULTS.botNameMaxChars;

function badName(): Response {
  return refuse('BadBotName', `A bot needs a name (1-${NAME_MAX} characters, not blank)`);
}

/** The name as given, or null when it is blank or over NAME_MAX characters once trimmed. */
function nameOf(body: unknown): string | null {
  const name = stringField(body, 'name');
  if (name === null || name.trim() === '') return null;
  return [...name.trim()].length <= NAME_MAX ? name : null;
}

/** Deletes upstream; true when the bot is gone (deleted now, or already). */
async function deleteUpstream(call: ServiceCall, botId: string): Promise<boolean> {
  return (await deleteUpstreamBot(call, botId)).kind === 'done';
}

/** POST /bots {workspaceId, name} → 201 {@link AdminBotAnswer}. */
export async function createBot({ ctx, request, state }: AdminRequest): Promise<Response> {
  const body = await readJsonBody({ ctx, request, state });
  if ('refused' in body) return body.refused;
  const workspaceId = stringField(body.value, 'workspaceId');
  if (!workspaceId) return refuse('AdminWorkspaceRequired', 'Name the workspace (workspaceId)');
  const name = nameOf(body.value);
  if (!name) return badName();
  if (!ADMIN_ID.test(workspaceId)) return refuse('AdminWorkspaceNotFound', 'No such workspace');
  const call = ctx.upstream();
  if (!call) return tokenMissing();
  const answer = await sendServiceOperation(call, SVC_ADMIN_CREATE_BOT, {
    workspaceID: workspaceId,
    title: name,
  });
  if (answer.kind !== 'answered') return upstreamFailed(answer);
  const created = answer.data?.workspaceCreateBot as { id?: unknown; title?: unknown } | undefined;
  if (!created || typeof created.id !== 'string') {
    if (answer.codes.includes('TooManyBotsInWorkspace')) {
      return refuse('WorkspaceFull', 'The workspace plan allows no more bots');
    }
    if (answer.codes.some((c) => c === 'WorkspaceDoesNotExist' || c === 'NotEnoughPermissions')) {
      return refuse(
        'AdminWorkspaceForbidden',
        'The master token cannot create bots in that workspace',
      );
    }
    return refuse(
      'AdminBotCreateFailed',
      `The upstream refused the bot (${answer.codes[0] ?? 'no code'})`,
    );
  }
  const id = created.id;
  const title = typeof created.title === 'string' ? created.title : name;
  if (ctx.db) {
    const args = { p_bot_id: id, p_workspace_id: workspaceId, p_name: title };
    const recorded = await ctx.db.call('svc_admin_bot_record', args, DB_TIMEOUT_MS);
    if (recorded.status >= 300 || recorded.status === 0) {
      const rolledBack = await deleteUpstream(call, id);
      if (!rolledBack) {
        ctx.core.log(`svc-gateway: admin: bot ${id} could not be rolled back upstream`);
      }
      return refuse(
        'AdminDatabaseUnavailable',
        rolledBack
          ? 'The database did not record the bot; it was removed upstream again'
          : 'The database did not record the bot, and removing it upstream failed',
      );
    }
  }
  const result: AdminBotAnswer = { id, title, workspaceId, recorded: ctx.db !== null };
  return ok(result, {}, 201);
}

/** PATCH /bots/<id> {name} → {@link AdminBotAnswer}. */
export async function renameBot({ ctx, request, state, id }: AdminRequest): Promise<Response> {
  const body = await readJsonBody({ ctx, request, state });
  if ('refused' in body) return body.refused;
  const name = nameOf(body.value);
  if (!name) return badName();
  const call = ctx.upstream();
  if (!call) return tokenMissing();
  let previous: string | null = null;
  if (ctx.db) {
    const renamed = await ctx.db.call(
      'svc_admin_bot_rename',
      { p_bot_id: id, p_name: name },
      DB_TIMEOUT_MS,
    );
    if (renamed.status !== 200) return databaseFailed(renamed);
    previous = typeof renamed.data === 'string' ? renamed.data : null;
  }
  const outcome = await renameUpstreamBot(call, id, name);
  if (outcome.kind === 'done') {
    return ok(
      { id, title: name, workspaceId: null, recorded: previous !== null } satisfies AdminBotAnswer,
    );
  }
  if (ctx.db && previous !== null) {
    await ctx.db.call('svc_admin_bot_rename', { p_bot_id: id, p_name: previous }, DB_TIMEOUT_MS);
  }
  if (outcome.kind === 'refused' && outcome.codes.includes('BotDoesNotExist')) {
    return refuse('AdminBotNotFound', 'No such bot');
  }
  return refuse('BotRenameFailed', 'The upstream refused the new name; the old one is kept');
}

/** Which workspace holds the bot and how many bots it has, from SvcAdminOverview. */
async function guardsOf(call: ServiceCall, botId: string) {
  const answer = await sendServiceOperation(call, SVC_ADMIN_OVERVIEW, {});
  const workspaces = answer.kind === 'answered'
    ? (answer.data?.currentUser as { workspaces?: unknown } | undefined)?.workspaces
    : undefined;
  if (!Array.isArray(workspaces)) return null;
  for (const ws of workspaces as { id: string; bots?: { id: string }[] }[]) {
    const bots = Array.isArray(ws.bots) ? ws.bots : [];
    if (bots.some((b) => b.id === botId)) {
      return { found: true, workspaceId: ws.id, count: bots.length };
    }
  }
  return { found: false, workspaceId: null, count: 0 };
}

/** DELETE /bots/<id>[?force=1] → {@link AdminBotDeleted}. */
export async function deleteBot({ ctx, request, id }: AdminRequest): Promise<Response> {
  await request.body?.cancel().catch(() => {});
  const call = ctx.upstream();
  if (!call) return tokenMissing();
  const guards = await guardsOf(call, id);
  if (guards === null) {
    return refuse(
      'AdminUpstreamUnavailable',
      'The upstream could not be asked about the bot; nothing was deleted',
    );
  }
  if (!guards.found) return refuse('AdminBotNotFound', 'No such bot');
  const last = guards.count === 1;
  if (last && guards.workspaceId === ctx.core.config.admin.homeWorkspaceId) {
    return refuse(
      'LastBotInWorkspace',
      'This is the last bot of the workspace the app is built on',
    );
  }
  const force = new URL(request.url).searchParams.get('force') === '1';
  if (last && !force) {
    return refuse(
      'WorkspaceGoesWithIt',
      'This is the last bot of its workspace: the upstream deletes the workspace with it (add ?force=1)',
    );
  }
  if (!await deleteUpstream(call, id)) {
    return refuse('BotDeleteFailed', 'The upstream refused the delete; nothing was removed');
  }
  let socketsClosed = 0;
  if (ctx.db) {
    const forgotten = await ctx.db.call('svc_admin_bot_forget', { p_bot_id: id }, DB_TIMEOUT_MS);
    const users = forgotten.status === 200 && Array.isArray(forgotten.data) ? forgotten.data : [];
    for (const user of users) {
      if (typeof user !== 'string') continue;
      ctx.core.gate.forget?.(user);
      socketsClosed += ctx.core.revocations.revoke(user, id);
    }
  }
  const result: AdminBotDeleted = { id, deleted: true, workspaceDeleted: last, socketsClosed };
  return ok(result);
}
