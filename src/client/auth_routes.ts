/**
 * Typed calls of the sign-up and bot routes (SPEC "Route table": /svc/auth/provision,
 * /svc/auth/bots, /svc/auth/recovery-link; refusals: "Sign-up and bot routes",
 * "Recovery-link route"). Mounted only with the session gate and a service-role key: on a
 * deployment without them every call throws SvcNotAvailableError.
 */
import { CLIENT_DEFAULTS } from './defaults.ts';
import { callRoute, routeContext, type SvcRoutesOptions } from './route_call.ts';
import type {
  CreateBotAnswer,
  DeleteBotAnswer,
  ProvisionAnswer,
  RecoveryLinkAnswer,
  RenameBotAnswer,
} from './route_types.ts';

/** Options of {@link createAuthRoutes}: the shared ones and the prefix (default /svc/auth). */
export interface SvcAuthRoutesOptions extends SvcRoutesOptions {
  authPath?: string;
}

/** The calls; each needs a signed-in session (getAccessToken). */
export interface SvcAuthRoutes {
  /** POST /provision: completes sign-up; idempotent (an existing workspace is returned). */
  provision(): Promise<ProvisionAnswer>;
  /** POST /bots {name}: another bot in the caller's workspace (422 BadBotName when blank). */
  createBot(name: string): Promise<CreateBotAnswer>;
  /** PATCH /bots/<id> {name} (502 BotRenameFailed when the upstream refused; name restored). */
  renameBot(id: string, name: string): Promise<RenameBotAnswer>;
  /** DELETE /bots/<id> (409 LastBotInWorkspace, 503 BotDeleteUnavailable, 502 BotDeleteFailed). */
  deleteBot(id: string): Promise<DeleteBotAnswer>;
  /** POST /recovery-link {email}: the link is written to the server log only. */
  recoveryLink(email: string): Promise<RecoveryLinkAnswer>;
}

/** Creates the auth route calls (one session latch for all of them: route_call.ts). */
export function createAuthRoutes(options: SvcAuthRoutesOptions = {}): SvcAuthRoutes {
  const prefix = options.authPath ?? CLIENT_DEFAULTS.authPath;
  const context = routeContext(options);
  const bot = (id: string) => `${prefix}/bots/${encodeURIComponent(id)}`;
  return {
    provision: () => callRoute(context, { method: 'POST', path: `${prefix}/provision`, json: {} }),
    createBot: (name) =>
      callRoute(context, { method: 'POST', path: `${prefix}/bots`, json: { name } }),
    renameBot: (id, name) => callRoute(context, { method: 'PATCH', path: bot(id), json: { name } }),
    deleteBot: (id) => callRoute(context, { method: 'DELETE', path: bot(id) }),
    recoveryLink: (email) =>
      callRoute(context, { method: 'POST', path: `${prefix}/recovery-link`, json: { email } }),
  };
}
