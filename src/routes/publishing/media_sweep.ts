/**
 * POST /media-sweep: the daily pg_cron job's callback (svc_media_sweep_tick, through pg_net)
 * removing media objects that no post references once older than PUBLISHING_MEDIA_TTL_DAYS
 * (SPEC option mediaTtlDays). Authorised exactly like /publish-due: PUBLISHING_SECRET
 * unset → 500 ProxySocialMisconfigured; x-svc-publish-key absent or wrong → 401 NotAllowed. Then
 * svc_media_expired(<TTL days>, 100), each object removed from Storage and forgotten (Storage
 * refusing → 502 MediaDeleteFailed, the rest kept for the next sweep). Answers {removed}.
 */
import { DEFAULTS } from '../../config/defaults.ts';
import { ok, refuse, refuseDatabase } from './answers.ts';
import type { PublishingRequest } from './context.ts';
import { PUBLISH_KEY_HEADER, publishKeyMatches } from './publish_key.ts';

const DB_TIMEOUT_MS = DEFAULTS.publishingDatabaseTimeoutMs;
/** Objects removed per sweep at most (the next day's sweep takes the rest). */
const SWEEP_BATCH = 100;

/** The sweep handler. */
export async function mediaSweep(req: PublishingRequest): Promise<Response> {
  await req.request.body?.cancel().catch(() => {});
  const { config } = req.ctx.core;
  const secret = config.publishingSecret;
  if (!secret) return refuse('ProxySocialMisconfigured', 'PUBLISHING_SECRET is not set', req.cors);
  if (!await publishKeyMatches(req.request.headers.get(PUBLISH_KEY_HEADER), secret)) {
    return refuse('NotAllowed', 'Not allowed', req.cors);
  }
  const { service, storage } = req.ctx;
  if (service === null || storage === null) {
    return refuse('ProxyAuthMisconfigured', 'Media storage needs a service-role key', req.cors);
  }
  const expired = await service.call('svc_media_expired', {
    p_ttl_days: config.mediaTtlDays,
    p_limit: SWEEP_BATCH,
  }, DB_TIMEOUT_MS);
  if (expired.status !== 200) return refuseDatabase(expired, req.cors);
  let removed = 0;
  for (const key of (expired.data as string[]) ?? []) {
    const outcome = await storage.remove(key);
    if (outcome === 'failed') {
      return refuse('MediaDeleteFailed', 'The storage refused to delete an expired file', req.cors);
    }
    const botId = key.slice(0, key.indexOf('/'));
    await service.call('svc_media_forget', { p_bot_id: botId, p_key: key }, DB_TIMEOUT_MS);
    if (outcome === 'removed') removed++;
  }
  return ok({ removed }, req.cors);
}
