/**
 * What every publishing handler reads: the core, the backend as the service role (scheduler and
 * media functions) and as the caller (posts functions, which fence by svc_my_bot_ids), and the
 * upstream call settings. SPEC "Publish queue: /svc/publishing" (mounted with the gate on and a
 * service-role key).
 */
import type { RequestState } from '../../http/request_state.ts';
import { type BackendRpc, createBackendRpc } from '../../backend/rpc.ts';
import { DEFAULTS } from '../../config/defaults.ts';
import type { Core } from '../../core.ts';
import { createMediaStorage, type MediaStorage } from './storage.ts';

/** The publish queue of one proxy instance. */
export interface PublishingContext {
  readonly core: Core;
  /** svc_* calls as the service role; null without a service-role key (500 ProxyAuthMisconfigured). */
  readonly service: BackendRpc | null;
  /** svc_* calls as the signed-in caller (anon key as apikey, the caller's JWT as bearer). */
  readonly user: BackendRpc | null;
  /** The media bucket (PUBLISHING_MEDIA_BUCKET) as the service role; null without the key. */
  readonly storage: MediaStorage | null;
}

/** One request to a publishing route. */
export interface PublishingRequest {
  ctx: PublishingContext;
  request: Request;
  /** The request's state from the door: its memory hold, a body read ahead. */
  state: RequestState;
  /** CORS headers for a listed cross-origin caller (added to every answer). */
  cors: Record<string, string>;
  /** The id segment of /posts/<id> ('' elsewhere). */
  id: string;
}

/** Builds the context over `core`. */
export function createPublishingContext(core: Core): PublishingContext {
  const { url, anonKey, serviceRoleKey } = core.config.auth;
  return {
    core,
    service: url && serviceRoleKey ? createBackendRpc(url, serviceRoleKey, core.fetch) : null,
    user: url && anonKey ? createBackendRpc(url, anonKey, core.fetch) : null,
    storage: url && serviceRoleKey
      ? createMediaStorage({
        url,
        serviceRoleKey,
        bucket: core.config.mediaBucket,
        fetch: core.fetch,
        timeoutMs: DEFAULTS.storageTimeoutMs,
        checkTimeoutMs: DEFAULTS.storageCheckTimeoutMs,
        cacheSeconds: DEFAULTS.mediaCacheSeconds,
      })
      : null,
  };
}
