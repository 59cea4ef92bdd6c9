/**
 * POST /register and GET /config (SPEC "Publish queue", "Authentication" 6).
 *
 * register: the admin panel's holder only (svc_admin cookie and x-svc-admin header: 401
 * AdminSessionRequired, 500 AdminMisconfigured); PUBLISHING_SECRET unset → 500
 * ProxySocialMisconfigured (also when it is not 1 to 1024 visible ASCII characters, what a
 * header carries); PUBLIC_URL unset → 409 ProxyPublicUrlMissing. Records
 * `<PUBLIC_URL><publishingPath>/publish-due`, PUBLISHING_SECRET (what the scheduler sends as
 * x-svc-publish-key) and HOST_AUTOMATION_BYPASS_SECRET when set, and (re)schedules the pg_cron
 * jobs. Then asks Storage for the media bucket (PUBLISHING_MEDIA_BUCKET): its state is in the
 * answer, and a bucket that is missing, private or unreachable also gets a WARNING log line.
 * Answers PublishingRegistration (no secret in it).
 *
 * config: behind the session gate; answers PublishingConfig.
 */
import { DEFAULTS } from '../../config/defaults.ts';
import { refusalResponse } from '../../http/responses.ts';
import { checkAdminSession } from '../admin/session_check.ts';
import { ok, refuse, refuseDatabase } from './answers.ts';
import { admitSession } from './caller.ts';
import type { PublishingRequest } from './context.ts';
import type { MediaBucketState, PublishingConfig, PublishingRegistration } from './types.ts';

const DB_TIMEOUT_MS = DEFAULTS.publishingDatabaseTimeoutMs;
/** What an HTTP header can carry as is (and svc_publishing_register accepts). */
const SECRET_SHAPE = new RegExp(`^[\\x21-\\x7e]{1,${DEFAULTS.publishingSecretMaxChars}}$`);
const SECRET_SENTENCE =
  `PUBLISHING_SECRET must be 1 to ${DEFAULTS.publishingSecretMaxChars} visible ASCII characters`;

/** POST /register. */
export async function register(req: PublishingRequest): Promise<Response> {
  await req.request.body?.cancel().catch(() => {});
  const refused = await checkAdminSession(req.ctx.core.config, req.request);
  if (refused) return refusalResponse({ ...refused, headers: { ...req.cors } });
  const { config } = req.ctx.core;
  if (!config.publishingSecret) {
    return refuse('ProxySocialMisconfigured', 'PUBLISHING_SECRET is not set', req.cors);
  }
  if (!SECRET_SHAPE.test(config.publishingSecret)) {
    return refuse('ProxySocialMisconfigured', SECRET_SENTENCE, req.cors);
  }
  if (!config.publicUrl) {
    return refuse('ProxyPublicUrlMissing', 'PUBLIC_URL is not set', req.cors);
  }
  const service = req.ctx.service;
  if (service === null) {
    return refuse('ProxyAuthMisconfigured', 'The publish queue needs a service-role key', req.cors);
  }
  const callbackUrl = `${config.publicUrl}${config.publishingPath}/publish-due`;
  const result = await service.call('svc_publishing_register', {
    p_callback_url: callbackUrl,
    p_publish_key: config.publishingSecret,
    p_bypass_secret: config.bypassSecret ?? null,
  }, DB_TIMEOUT_MS);
  if (result.status !== 200) return refuseDatabase(result, req.cors);
  const data = result.data as { scheduled?: unknown };
  const answer: PublishingRegistration = {
    registered: true,
    callbackUrl,
    bypass: config.bypassSecret !== undefined,
    scheduled: data?.scheduled === true,
    mediaBucket: { name: config.mediaBucket, state: await mediaBucketState(req) },
  };
  return ok(answer, req.cors);
}

/** What the log says of a bucket that is not ready (a bucket name is no secret). */
const BUCKET_WARNINGS: Record<Exclude<MediaBucketState, 'ready'>, string> = {
  missing: 'does not exist: media uploads will fail until it is created (supabase/migrations ' +
    'create svc-pub-media; another name needs its own public bucket)',
  private: 'is not public: the upstream fetches media by their public URL',
  unreachable: 'could not be checked: Storage did not answer',
};

/** The media bucket's state; a warning line when it is not ready. */
async function mediaBucketState(req: PublishingRequest): Promise<MediaBucketState> {
  const state = await req.ctx.storage?.state() ?? 'unreachable';
  if (state !== 'ready') {
    req.ctx.core.log(
      `svc-gateway: WARNING: the media bucket ${req.ctx.core.config.mediaBucket} ${
        BUCKET_WARNINGS[state]
      }`,
    );
  }
  return state;
}

/** GET /config. */
export async function publishingConfig(req: PublishingRequest): Promise<Response> {
  const session = await admitSession(req);
  if (session instanceof Response) return session;
  const { config } = req.ctx.core;
  const missing: string[] = [];
  if (!config.publishingSecret) missing.push('PUBLISHING_SECRET');
  if (!config.publicUrl) missing.push('PUBLIC_URL');
  if (config.token === null) missing.push(config.tokenEnv);
  let registered = false;
  const status = await req.ctx.service?.call('svc_publishing_status', {}, DB_TIMEOUT_MS);
  if (status?.status === 200) {
    registered = (status.data as { registered?: unknown })?.registered === true;
    if (!registered) missing.push('register');
  } else {
    return refuseDatabase(status ?? { status: 0, data: null, error: null }, req.cors);
  }
  const answer: PublishingConfig = {
    scheduling: missing.length === 0,
    missing,
    registered,
    media: {
      contentTypes: DEFAULTS.mediaTypes.map((t) => t.contentType),
      maxBytes: DEFAULTS.mediaFileBytes,
      quotaBytes: config.mediaQuotaMb * 1024 * 1024,
    },
  };
  return ok(answer, req.cors);
}
