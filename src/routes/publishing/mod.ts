/**
 * /svc/publishing: the publish queue's route table and dispatcher. SPEC "Publish queue:
 * /svc/publishing", its rows of "Errors", "Authentication" 5 and 6.
 *
 * Order for a path under the prefix (host, origin and preflight ran before, in
 * src/routes/caller_checks.ts): unknown path → 404 NotFound; method not taken → 405 (allow header,
 * empty body); a post id that is not a UUID → 404 PostNotFound; then the handler (each does its own
 * credential check: session gate, admin session, or publish key). A handler that throws: 500
 * ProxyInternalError.
 */
import type { RequestState } from '../../http/request_state.ts';
import { mountedRoutes } from '../../config/startup.ts';
import type { Core } from '../../core.ts';
import { methodNotAllowed } from '../../http/responses.ts';
import { refuse } from './answers.ts';
import { createPublishingContext, type PublishingRequest } from './context.ts';
import { deleteMedia, uploadMedia } from './media.ts';
import { mediaSweep } from './media_sweep.ts';
import { createPost, deletePost, listPosts, POST_ID, updatePost } from './posts.ts';
import { publishDue } from './publish_due.ts';
import { publishingConfig, register } from './register.ts';

export type * from './types.ts';

type Handler = (req: PublishingRequest) => Promise<Response>;

/**
 * SPEC "Publish queue" route table: path (below the prefix), whether it takes an id, methods;
 * plus /media-sweep, the daily media TTL job's callback (SPEC option mediaTtlDays).
 */
const ROUTES: readonly { path: string; withId: boolean; methods: Record<string, Handler> }[] = [
  { path: '/config', withId: false, methods: { GET: publishingConfig } },
  { path: '/register', withId: false, methods: { POST: register } },
  { path: '/posts', withId: false, methods: { GET: listPosts, POST: createPost } },
  { path: '/posts', withId: true, methods: { PATCH: updatePost, DELETE: deletePost } },
  { path: '/media', withId: false, methods: { POST: uploadMedia, DELETE: deleteMedia } },
  { path: '/publish-due', withId: false, methods: { POST: publishDue } },
  { path: '/media-sweep', withId: false, methods: { POST: mediaSweep } },
];

function match(path: string) {
  for (const route of ROUTES) {
    if (!route.withId && path === route.path) return { route, id: '' };
    if (route.withId && path.startsWith(`${route.path}/`)) {
      return { route, id: path.slice(route.path.length + 1) };
    }
  }
  return null;
}

/** The queue's handler: `path` is the pathname under `config.publishingPath`. */
export type PublishingHandler = (
  request: Request,
  state: RequestState,
  path: string,
  cors: Record<string, string>,
) => Promise<Response>;

/**
 * Builds the queue over `core`, or null when it is not mounted (SPEC "Route table": the gate on
 * and a service-role key; else the paths are not claimed).
 */
export function createPublishingRoutes(core: Core): PublishingHandler | null {
  if (!mountedRoutes(core.config).includes('publishing')) return null;
  const ctx = createPublishingContext(core);
  return async (request, state, path, cors) => {
    const found = match(path);
    if (!found) return refuse('NotFound', 'No such publishing route', cors);
    const handler = found.route.methods[request.method];
    if (!handler) {
      await request.body?.cancel().catch(() => {});
      return methodNotAllowed(Object.keys(found.route.methods));
    }
    if (found.route.withId && !POST_ID.test(found.id)) {
      await request.body?.cancel().catch(() => {});
      return refuse('PostNotFound', 'No such post', cors);
    }
    try {
      return await handler({ ctx, request, state, cors, id: found.id });
    } catch (error) {
      core.log(`svc-gateway: publishing handler failed: ${(error as Error)?.name ?? 'error'}`);
      return refuse('ProxyInternalError', 'The publish queue failed to handle this request', cors);
    }
  };
}
