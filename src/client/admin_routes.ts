/**
 * Typed calls of the operator panel (SPEC "Admin panel: /svc/admin"; refusals: "Admin panel").
 * Same-origin only: the svc_admin cookie travels with `credentials: 'same-origin'` and every
 * call sends the x-svc-admin header. Mounted only with ADMIN_PASSWORD: without it every call
 * throws SvcNotAvailableError (no panel). Shapes: src/routes/admin/types.ts (type-only).
 */
import type {
  AdminBotAnswer,
  AdminBotDeleted,
  AdminBotDetail,
  AdminGrantAnswer,
  AdminHealth,
  AdminOverview,
  AdminRevokeAnswer,
  AdminSessionAnswer,
  AdminTenants,
  AdminWorkspaceDetail,
} from '../routes/admin/types.ts';
import { CLIENT_DEFAULTS } from './defaults.ts';
import {
  callRoute,
  routeContext,
  type RouteRequest,
  type SvcRoutesOptions,
  withoutSession,
} from './route_call.ts';

/** Options of {@link createAdminRoutes}: the shared ones and the prefix (default /svc/admin). */
export interface SvcAdminRoutesOptions extends Omit<SvcRoutesOptions, 'getAccessToken'> {
  adminPath?: string;
}

/** The panel's calls. */
export interface SvcAdminRoutes {
  /** GET /session: whether this browser holds an unlocked session. */
  session(): Promise<AdminSessionAnswer>;
  /** POST /session {password}: unlocks (401 AdminBadPassword, 429 AdminThrottled). */
  unlock(password: string): Promise<AdminSessionAnswer>;
  /** DELETE /session: signs out. */
  signOut(): Promise<AdminSessionAnswer>;
  overview(): Promise<AdminOverview>;
  health(): Promise<AdminHealth>;
  tenants(): Promise<AdminTenants>;
  /** POST /grants {botId, userId}. */
  grant(botId: string, userId: string): Promise<AdminGrantAnswer>;
  /** DELETE /grants?botId=&userId=. */
  revoke(botId: string, userId: string): Promise<AdminRevokeAnswer>;
  /** POST /bots {workspaceId, name}. */
  createBot(workspaceId: string, name: string): Promise<AdminBotAnswer>;
  bot(id: string): Promise<AdminBotDetail>;
  renameBot(id: string, name: string): Promise<AdminBotAnswer>;
  /** DELETE /bots/<id>; `force` for the last bot of another workspace (WorkspaceGoesWithIt). */
  deleteBot(id: string, options?: { force?: boolean }): Promise<AdminBotDeleted>;
  workspace(id: string): Promise<AdminWorkspaceDetail>;
}

/** Creates the admin panel calls. */
export function createAdminRoutes(options: SvcAdminRoutesOptions = {}): SvcAdminRoutes {
  const prefix = options.adminPath ?? CLIENT_DEFAULTS.adminPath;
  const context = withoutSession(routeContext(options));
  const call = <T>(request: Omit<RouteRequest, 'path'> & { path: string }) =>
    callRoute<T>(context, {
      ...request,
      path: `${prefix}${request.path}`,
      headers: { 'x-svc-admin': '1' },
    });
  const id = (value: string) => encodeURIComponent(value);
  return {
    session: () => call({ method: 'GET', path: '/session' }),
    unlock: (password) => call({ method: 'POST', path: '/session', json: { password } }),
    signOut: () => call({ method: 'DELETE', path: '/session' }),
    overview: () => call({ method: 'GET', path: '/overview' }),
    health: () => call({ method: 'GET', path: '/health' }),
    tenants: () => call({ method: 'GET', path: '/tenants' }),
    grant: (botId, userId) => call({ method: 'POST', path: '/grants', json: { botId, userId } }),
    revoke: (botId, userId) =>
      call({ method: 'DELETE', path: '/grants', query: { botId, userId } }),
    createBot: (workspaceId, name) =>
      call({ method: 'POST', path: '/bots', json: { workspaceId, name } }),
    bot: (botId) => call({ method: 'GET', path: `/bots/${id(botId)}` }),
    renameBot: (botId, name) =>
      call({ method: 'PATCH', path: `/bots/${id(botId)}`, json: { name } }),
    deleteBot: (botId, o = {}) =>
      call({
        method: 'DELETE',
        path: `/bots/${id(botId)}`,
        query: { force: o.force ? '1' : undefined },
      }),
    workspace: (workspaceId) => call({ method: 'GET', path: `/workspaces/${id(workspaceId)}` }),
  };
}
