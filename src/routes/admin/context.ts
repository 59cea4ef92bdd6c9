/**
 * What every admin handler reads: the core, the service-role backend (null without one), the
 * throttle, and the upstream call settings (null without a master token).
 */
import type { RequestState } from '../../http/request_state.ts';
import { type BackendRpc, createBackendRpc } from '../../backend/rpc.ts';
import { DEFAULTS } from '../../config/defaults.ts';
import type { Core } from '../../core.ts';
import type { ServiceCall } from '../../upstream/service_operations.ts';
import { createThrottle, type Throttle } from './throttle.ts';

/** The panel of one proxy instance. */
export interface AdminContext {
  readonly core: Core;
  /**
   * The session module's database as the service role: the gate on (both backend variables)
   * and BACKEND_SERVICE_ROLE_KEY set; else null (tenants and grants answer 500
   * ProxyAuthMisconfigured; bots are not recorded).
   */
  readonly db: BackendRpc | null;
  readonly throttle: Throttle;
  /**
   * The fixed pause of every unlock attempt (SPEC "Authentication" 4: "Each attempt pauses a
   * fixed interval"): resolves after `ms` milliseconds.
   */
  pause(ms: number): Promise<void>;
  /** Upstream call settings with the given deadline (default timeoutMs); null without token. */
  upstream(timeoutMs?: number): ServiceCall | null;
}

/** One admin request: the context, the request, the peer, the path below the prefix. */
export interface AdminRequest {
  ctx: AdminContext;
  request: Request;
  /** The request's state from the door: its memory hold, a body read ahead. */
  state: RequestState;
  /** The peer as the host reported it (ConnInfo of src/http/request.ts). */
  conn: { remoteAddress?: string } | undefined;
  /** Path below the admin prefix, e.g. '/bots/abc'. */
  path: string;
  /** The id segment of /bots/<id> and /workspaces/<id> (already shape-checked). */
  id: string;
}

/**
 * Builds the panel's context over `core`. The throttle shares its counter through the backend
 * whenever a service-role key (and the backend URL) exists, whatever the session gate's state
 * (SPEC "Authentication" 4: "per-process memory plus a shared backend row when a service-role
 * key exists"); tenants, grants and bot records need the session module (the gate on as well).
 */
export function createAdminContext(core: Core): AdminContext {
  const { state, url, serviceRoleKey } = core.config.auth;
  const backend = url !== undefined && serviceRoleKey !== undefined
    ? createBackendRpc(url, serviceRoleKey, core.fetch)
    : null;
  const db = state === 'on' ? backend : null;
  return {
    core,
    db,
    throttle: createThrottle(core.config.admin.throttle, backend),
    pause: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    upstream(timeoutMs = core.config.timeoutMs) {
      const token = core.config.token;
      if (token === null) return null;
      return { fetch: core.fetch, upstream: core.config.upstream, token, timeoutMs };
    },
  };
}

/** Deadline of one panel database call, ms. */
export const DB_TIMEOUT_MS = DEFAULTS.adminDatabaseTimeoutMs;
