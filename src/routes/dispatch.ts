/**
 * The route table (SPEC "Route table"): which paths the proxy claims, and which route answers a
 * claimed path once the checks before any route passed. The health path is the door's own
 * (src/door.ts); the relay path is the upgrade's (src/routes/upgrade.ts).
 */
import type { Core } from '../core.ts';
import { memoryBusy } from '../http/busy.ts';
import type { Routed } from '../http/answer.ts';
import { under } from './caller_checks.ts';
import type { ConnInfo, SvcRequest } from '../http/request.ts';
import type { RequestState } from '../http/request_state.ts';
import { refusalAnswer } from '../http/responses.ts';
import { metricsResponse } from '../observability/metrics_route.ts';
import { createAdminRoutes } from './admin/mod.ts';
import { createAuthRoutes } from './auth/mod.ts';
import { handleGraphql } from './graphql.ts';
import { createPublishingRoutes } from './publishing/mod.ts';
import { handleRest } from './rest.ts';

/** `request` as the Web Request the routes other than GraphQL read; throws when it is not one. */
function webRequest(request: SvcRequest): Request {
  if (request instanceof Request) return request;
  throw new TypeError('svc-gateway: only the GraphQL route takes a request that is not a Request');
}

/** The proxy's routes: what it claims, and the answer of a claimed path. */
export interface Router {
  /** Whether the proxy answers `path` (else the host answers its own 404). */
  claims(path: string): boolean;
  /**
   * The answer of the route for `path` (claimed), with `cors` on it. The GraphQL route reads any
   * {@link SvcRequest}; every other route reads a Web Request's API (cookies, form data, its
   * body) and throws for a request that is not one (the door answers 500 ProxyHandlerFailed).
   */
  route(
    request: SvcRequest,
    state: RequestState,
    path: string,
    cors: Record<string, string>,
    conn?: ConnInfo,
  ): Routed | Promise<Routed>;
}

/** The routes mounted over `core`; `exposition` is the metrics route's text. */
export function createRouter(core: Core, exposition: () => Promise<string>): Router {
  const { config } = core;
  const admin = config.admin.state === 'off' ? null : createAdminRoutes(core);
  const auth = createAuthRoutes(core);
  const publishing = createPublishingRoutes(core);
  return {
    claims: (path) =>
      path === config.httpPath || under(path, config.apiPath) ||
      (admin !== null && under(path, config.adminPath)) ||
      (auth !== null && under(path, config.authPath)) ||
      (publishing !== null && under(path, config.publishingPath)) ||
      (core.metrics !== null && path === config.metricsPath),
    route(light, state, path, cors, conn) {
      if (path === config.httpPath) return handleGraphql(core, light, state, cors);
      const request = webRequest(light);
      if (core.metrics && path === config.metricsPath) {
        return metricsResponse(config, exposition, request, conn?.remoteAddress);
      }
      if (admin && under(path, config.adminPath)) {
        return admin(request, state, path.slice(config.adminPath.length), conn);
      }
      // past the memory budget, new requests are refused (docs/operations.md "Memory"); the
      // GraphQL route asks at its step 5, the panel and the metrics always answer
      if (core.memory?.refuseRequest()) {
        const refused = memoryBusy();
        return refusalAnswer({ ...refused, headers: { ...refused.headers, ...cors } });
      }
      if (auth && under(path, config.authPath)) {
        return auth(request, state, path.slice(config.authPath.length), cors);
      }
      if (publishing && under(path, config.publishingPath)) {
        return publishing(request, state, path.slice(config.publishingPath.length), cors);
      }
      return handleRest(core, request, state, path.slice(config.apiPath.length), cors);
    },
  };
}
