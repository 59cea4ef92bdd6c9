/**
 * The panel's read-only upstream routes: GET /overview, /health, /workspaces/<id>, /bots/<id>.
 * SPEC "Admin panel: /svc/admin" (route table), admin rows of "Errors"; documents from
 * facts.json upstreamOperationsUsedByService.
 *
 * Upstream not answering, answering another status, or answering errors without the data asked
 * for: 502 AdminUpstreamFailed (no master token: 500 ProxyTokenMissing).
 */
import { DEFAULTS } from '../../config/defaults.ts';
import type { ResolvedConfig } from '../../config/resolved.ts';
import {
  SVC_ADMIN_BOT,
  SVC_ADMIN_OVERVIEW,
  SVC_ADMIN_PING,
  SVC_ADMIN_WORKSPACE,
  SVC_ADMIN_WORKSPACE_BILLING,
} from '../../upstream/admin_operations.ts';
import { sendServiceOperation, type ServiceAnswer } from '../../upstream/service_operations.ts';
import { ok, refuse } from './answers.ts';
import type { AdminRequest } from './context.ts';
import type {
  AdminBotDetail,
  AdminHealth,
  AdminOverview,
  AdminSetting,
  AdminWorkspaceDetail,
  AdminWorkspaceSummary,
} from './types.ts';

// deno-lint-ignore no-explicit-any
type Json = any;

export function tokenMissing(): Response {
  return refuse('ProxyTokenMissing', 'The master token is not configured');
}

export function upstreamFailed(answer: ServiceAnswer): Response {
  const why = answer.kind === 'unreachable'
    ? 'did not answer'
    : answer.kind === 'failed'
    ? `answered HTTP ${answer.status}`
    : `refused (${answer.codes[0] ?? 'no data'})`;
  return refuse('AdminUpstreamFailed', `The upstream ${why}`);
}

function workspaceOf(config: ResolvedConfig, ws: Json): AdminWorkspaceSummary {
  return {
    id: String(ws.id),
    title: String(ws.title ?? ''),
    botsLimit: typeof ws.botsLimit === 'number' ? ws.botsLimit : null,
    home: ws.id === config.admin.homeWorkspaceId,
    bots: (Array.isArray(ws.bots) ? ws.bots : []).map((b: Json) => ({
      id: String(b.id),
      title: String(b.title ?? ''),
    })),
  };
}

const person = (u: Json) => ({
  id: String(u.id),
  name: typeof u.name === 'string' ? u.name : null,
  email: typeof u.email === 'string' ? u.email : null,
});

/** GET /overview → {@link AdminOverview}. */
export async function overview({ ctx }: AdminRequest): Promise<Response> {
  const call = ctx.upstream();
  if (!call) return tokenMissing();
  const answer = await sendServiceOperation(call, SVC_ADMIN_OVERVIEW, {});
  const user: Json = answer.kind === 'answered' ? answer.data?.currentUser : null;
  if (!user || typeof user.id !== 'string' || !Array.isArray(user.workspaces)) {
    return upstreamFailed(answer);
  }
  const body: AdminOverview = {
    account: person(user),
    workspaces: user.workspaces.map((ws: Json) => workspaceOf(ctx.core.config, ws)),
  };
  return ok(body);
}

/** The deployment settings health names (presence only). */
function settings(config: ResolvedConfig): AdminSetting[] {
  const rows: [string, unknown][] = [
    [config.tokenEnv, config.token],
    ['SVC_API_BASE', config.upstream !== DEFAULTS.upstream],
    ['SVC_WORKSPACE_ID', config.workspaceId],
    ['CLIENT_BACKEND_URL', config.auth.url],
    ['CLIENT_BACKEND_ANON_KEY', config.auth.anonKey],
    ['BACKEND_SERVICE_ROLE_KEY', config.auth.serviceRoleKey],
    ['ADMIN_PASSWORD', config.admin.password],
    ['PUBLIC_URL', config.publicUrl],
    ['PUBLISHING_SECRET', config.publishingSecret],
    ['ALLOWED_ORIGINS', config.allowedOrigins.length > 0 || config.anyOrigin],
    ['TRUST_FORWARDED_FOR', config.trustForwardedFor],
  ];
  return rows.map(([name, value]) => ({ name, present: Boolean(value) }));
}

/** GET /health → {@link AdminHealth} (always 200: the answer says what is wrong). */
export async function health({ ctx }: AdminRequest): Promise<Response> {
  const { config } = ctx.core;
  const call = ctx.upstream(DEFAULTS.adminPingTimeoutMs);
  let token: AdminHealth['token'] = { works: false, state: 'missing', account: null };
  if (call) {
    const answer = await sendServiceOperation(call, SVC_ADMIN_PING, {});
    const user: Json = answer.kind === 'answered' ? answer.data?.currentUser : null;
    if (user && typeof user.id === 'string') {
      token = { works: true, state: 'ok', account: person(user) };
    } else {
      const state = answer.kind === 'answered' ? 'refused' : answer.kind;
      token = { works: false, state, account: null };
    }
  }
  const body: AdminHealth = {
    token,
    settings: settings(config),
    problems: [...config.problems],
    gate: config.auth.state,
  };
  return ok(body);
}

function workspaceNotFound(): Response {
  return refuse('AdminWorkspaceNotFound', 'No such workspace');
}

/** GET /workspaces/<id> → {@link AdminWorkspaceDetail}; billing asked beside, allowed to fail. */
export async function workspace({ ctx, id }: AdminRequest): Promise<Response> {
  const call = ctx.upstream();
  if (!call) return tokenMissing();
  const variables = { workspaceID: id };
  const [answer, billing] = await Promise.all([
    sendServiceOperation(call, SVC_ADMIN_WORKSPACE, variables),
    sendServiceOperation(call, SVC_ADMIN_WORKSPACE_BILLING, variables),
  ]);
  if (answer.kind !== 'answered') return upstreamFailed(answer);
  const user: Json = answer.data?.currentUser;
  const ws: Json = user?.workspace;
  if (!ws) {
    const gone = answer.codes.some((c) => c === 'WorkspaceDoesNotExist' || c === 'NotFound');
    if (gone || (user && answer.codes.length === 0)) return workspaceNotFound();
    return upstreamFailed(answer);
  }
  const sub: Json = billing.kind === 'answered'
    ? (billing.data as Json)?.currentUser?.workspace?.subscription
    : null;
  const body: AdminWorkspaceDetail = {
    workspace: workspaceOf(ctx.core.config, ws),
    billing: sub && typeof sub === 'object'
      ? {
        id: typeof sub.id === 'string' ? sub.id : null,
        status: typeof sub.status === 'string' ? sub.status : null,
        isOnTrialPeriod: typeof sub.isOnTrialPeriod === 'boolean' ? sub.isOnTrialPeriod : null,
      }
      : null,
  };
  return ok(body);
}

/** The bot detail as the upstream answered it, or a Response (404 / 502). */
export async function fetchBot(
  req: AdminRequest,
): Promise<{ bot: Json; role: Json } | { refused: Response }> {
  const call = req.ctx.upstream();
  if (!call) return { refused: tokenMissing() };
  const answer = await sendServiceOperation(call, SVC_ADMIN_BOT, { botID: req.id });
  if (answer.kind !== 'answered') return { refused: upstreamFailed(answer) };
  const bot: Json = answer.data?.bot;
  if (!bot) {
    const gone = answer.codes.length === 0 ||
      answer.codes.some((c) => c === 'BotDoesNotExist' || c === 'NotFound');
    return { refused: gone ? refuse('AdminBotNotFound', 'No such bot') : upstreamFailed(answer) };
  }
  return { bot, role: (answer.data as Json)?.currentUser?.botRole ?? null };
}

/** GET /bots/<id> → {@link AdminBotDetail}. */
export async function botDetail(req: AdminRequest): Promise<Response> {
  const found = await fetchBot(req);
  if ('refused' in found) return found.refused;
  const { bot, role } = found;
  const body: AdminBotDetail = {
    bot: {
      id: String(bot.id),
      title: String(bot.title ?? ''),
      createdAt: bot.createdAt ?? null,
      isReady: typeof bot.isReady === 'boolean' ? bot.isReady : null,
      countryCode: bot.countryCode ?? null,
      timezone: bot.timezone ?? null,
      industry: bot.industry ?? null,
      workspace: bot.workspace ?? null,
      contactScopes: Array.isArray(bot.contactScopes) ? bot.contactScopes : [],
      members: Array.isArray(bot.members) ? bot.members : [],
    },
    role: role
      ? {
        roleTypeV2: role.roleTypeV2 ?? null,
        botPermissions: Array.isArray(role.botPermissions) ? role.botPermissions : [],
      }
      : null,
    home: bot.workspace?.id !== undefined &&
      bot.workspace.id === req.ctx.core.config.admin.homeWorkspaceId,
  };
  return ok(body);
}
