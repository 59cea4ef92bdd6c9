/**
 * The /svc/auth route group (SPEC "Route table": provision, bots, recovery-link). Mounted only
 * with the gate on and a service-role key (`createAuthRoutes` answers null otherwise); with
 * SVC_WORKSPACE_ID unset the provision and bots routes answer 500 ProxyAuthMisconfigured naming
 * the variable. Wrong methods: 405 with an allow header. A handler that throws: 500
 * ProxyInternalError (the backstop; nothing of the failure is shown or logged).
 */
import type { RequestState } from '../../http/request_state.ts';
import type { Core } from '../../core.ts';
import { methodNotAllowed } from '../../http/responses.ts';
import { deleteBot, renameBot } from './bots.ts';
import { type Answer, authContext, type AuthRequest, refuse, toResponse } from './context.ts';
import { createBot, provision } from './provision.ts';
import { recoveryLink } from './recovery.ts';

export type * from './types.ts';

/** Handles `request` for `subpath` (the path after authPath, e.g. '/bots/123'). */
export type AuthRoutes = (
  request: Request,
  state: RequestState,
  subpath: string,
  cors: Record<string, string>,
) => Promise<Response>;

/** One row of the route table: the methods it takes and its handler per method. */
interface Route {
  methods: Record<string, (req: AuthRequest, id: string) => Promise<Answer>>;
  /** Needs SVC_WORKSPACE_ID. */
  workspace: boolean;
}

const PROVISION: Route = { methods: { POST: provision }, workspace: true };
const BOTS: Route = { methods: { POST: createBot }, workspace: true };
const BOT: Route = { methods: { PATCH: renameBot, DELETE: deleteBot }, workspace: true };
const RECOVERY: Route = { methods: { POST: recoveryLink }, workspace: false };

/** The route of a subpath, with the bot id for bots/<id> (undefined: a bad or empty id). */
function routeOf(subpath: string): { route: Route; id?: string } | null {
  if (subpath === '/provision') return { route: PROVISION };
  if (subpath === '/bots') return { route: BOTS };
  if (subpath === '/recovery-link') return { route: RECOVERY };
  if (subpath.startsWith('/bots/')) {
    let id: string | undefined;
    try {
      id = decodeURIComponent(subpath.slice('/bots/'.length));
    } catch {
      id = undefined;
    }
    return { route: BOT, id: id && !id.includes('/') ? id : undefined };
  }
  return null;
}

/** The route group, or null when it is not mounted (gate off or no service-role key). */
export function createAuthRoutes(core: Core): AuthRoutes | null {
  const ctx = authContext(core);
  if (ctx === null) return null;
  return async (request, state, subpath, cors) => {
    const found = routeOf(subpath);
    if (found === null) return toResponse(refuse('NotFound', 'No such auth route'), cors);
    const handler = found.route.methods[request.method];
    if (!handler) return methodNotAllowed(Object.keys(found.route.methods));
    if (found.route === BOT && found.id === undefined) {
      return toResponse(refuse('BotNotFound', 'No bot id in the path'), cors);
    }
    if (found.route.workspace && !core.config.workspaceId) {
      const message = 'SVC_WORKSPACE_ID is not set: bots cannot be provisioned';
      return toResponse(refuse('ProxyAuthMisconfigured', message), cors);
    }
    try {
      return toResponse(await handler({ ctx, request, state, cors }, found.id ?? ''), cors);
    } catch {
      return toResponse(refuse('ProxyInternalError', 'The auth route failed'), cors);
    }
  };
}
