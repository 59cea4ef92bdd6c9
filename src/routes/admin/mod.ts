/**
 * /svc/admin: the operator panel's route table and dispatcher. SPEC "Admin panel: /svc/admin",
 * "Configuration states" (admin rows), "Authentication" 4, admin rows of "Errors".
 *
 * Order for a path under the prefix (host and same-origin checks ran before, in
 * src/routes/caller_checks.ts): panel misconfigured → 500 AdminMisconfigured; unknown path → 404
 * AdminRouteNotFound; method not taken → 405 (allow header, empty body); a malformed workspace or
 * bot id → 404 AdminWorkspaceNotFound / AdminBotNotFound; every route but POST /session → the
 * session check (401 AdminSessionRequired); then the handler. A handler that throws: 500
 * ProxyInternalError.
 */
import type { RequestState } from '../../http/request_state.ts';
import type { Core } from '../../core.ts';
import { methodNotAllowed } from '../../http/responses.ts';
import { ADMIN_ID, refuse } from './answers.ts';
import { type AdminContext, type AdminRequest, createAdminContext } from './context.ts';
import { createBot, deleteBot, renameBot } from './bots.ts';
import { readAdminSession } from './session_check.ts';
import { readSession, signOut, unlock } from './session_route.ts';
import { grant, revoke, tenants } from './tenants.ts';
import { botDetail, health, overview, workspace } from './upstream_reads.ts';

type Handler = (req: AdminRequest, sessionExpiresAt: number) => Promise<Response> | Response;

/** One row of the table: a path (with an optional id segment) and its methods. */
interface Route {
  path: string;
  /** Set for `<path>/<id>` routes: the refusal for an id outside [A-Za-z0-9_-]{1,64}. */
  idNotFound?: 'AdminWorkspaceNotFound' | 'AdminBotNotFound';
  methods: Record<string, Handler>;
}

/** SPEC "Admin panel: /svc/admin" route table, one row per route. */
const ROUTES: readonly Route[] = [
  { path: '/session', methods: { GET: readSession, POST: unlock, DELETE: signOut } },
  { path: '/overview', methods: { GET: overview } },
  { path: '/health', methods: { GET: health } },
  { path: '/tenants', methods: { GET: tenants } },
  { path: '/grants', methods: { POST: grant, DELETE: revoke } },
  { path: '/bots', methods: { POST: createBot } },
  {
    path: '/bots',
    idNotFound: 'AdminBotNotFound',
    methods: { GET: botDetail, PATCH: renameBot, DELETE: deleteBot },
  },
  { path: '/workspaces', idNotFound: 'AdminWorkspaceNotFound', methods: { GET: workspace } },
];

/** The route for `path` (below the prefix) and its id segment, or null. */
function match(path: string): { route: Route; id: string } | null {
  for (const route of ROUTES) {
    if (!route.idNotFound && path === route.path) return { route, id: '' };
    if (route.idNotFound && path.startsWith(`${route.path}/`)) {
      return { route, id: path.slice(route.path.length + 1) };
    }
  }
  return null;
}

/** The panel's handler: `path` is the pathname under `config.adminPath`. */
export type AdminHandler = (
  request: Request,
  state: RequestState,
  path: string,
  conn: { remoteAddress?: string } | undefined,
) => Promise<Response>;

async function dispatch(
  ctx: AdminContext,
  request: Request,
  state: RequestState,
  path: string,
  conn: AdminRequest['conn'],
) {
  const { config } = ctx.core;
  if (config.admin.state === 'misconfigured') {
    return refuse(
      'AdminMisconfigured',
      'The admin panel is misconfigured: ADMIN_PASSWORD must be at least 16 characters',
    );
  }
  const found = match(path);
  if (!found) return refuse('AdminRouteNotFound', 'No such admin route');
  const handler = found.route.methods[request.method];
  if (!handler) {
    await request.body?.cancel().catch(() => {});
    return methodNotAllowed(Object.keys(found.route.methods));
  }
  const req: AdminRequest = { ctx, request, state, conn, path, id: found.id };
  if (found.route.idNotFound && !ADMIN_ID.test(found.id)) {
    return refuse(found.route.idNotFound, 'No such id');
  }
  if (path === '/session' && request.method === 'POST') return await handler(req, 0);
  const session = await readAdminSession(config, request);
  if ('refused' in session) {
    await request.body?.cancel().catch(() => {});
    return refuse(session.refused.code, session.refused.message);
  }
  return await handler(req, session.expiresAt);
}

/** Builds the panel over `core` (call only when ADMIN_PASSWORD is set). */
export function createAdminRoutes(core: Core): AdminHandler {
  const ctx = createAdminContext(core);
  return async (request, state, path, conn) => {
    try {
      return await dispatch(ctx, request, state, path, conn);
    } catch (error) {
      core.log(`svc-gateway: admin handler failed: ${(error as Error)?.name ?? 'error'}`);
      return refuse('ProxyInternalError', 'The admin panel failed to handle this request');
    }
  };
}
