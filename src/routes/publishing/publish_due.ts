/**
 * POST /publish-due: the scheduler's callback (SPEC "Publish queue", "Authentication" 5). Order:
 * PUBLISHING_SECRET unset → 500 ProxySocialMisconfigured; x-svc-publish-key absent or wrong →
 * 401 NotAllowed; no master token → 500 ProxyTokenMissing (the post stays claimed; the reaper
 * retries it); body not {id} → 400 InvalidRequest; id not a UUID → 404 PostNotFound; then
 * svc_post_take (post_not_found → 404 PostNotFound, not_claimed → 409 PostNotClaimed: a second
 * callback for the same post publishes nothing), the publish field of its kind under
 * slowTimeoutMs, and svc_post_report: published (permalink) or failed (the upstream's reason).
 * Answers 200 PublishOutcome.
 */
import { DEFAULTS } from '../../config/defaults.ts';
import { isObject, ok, readJson, refuse, refuseDatabase } from './answers.ts';
import type { PublishingRequest } from './context.ts';
import { type PublishResult, sendPublish } from './publish_call.ts';
import { planPublish } from './publish_input.ts';
import { PUBLISH_KEY_HEADER, publishKeyMatches } from './publish_key.ts';
import { POST_ID } from './posts.ts';
import type { Post, PublishOutcome } from './types.ts';

const DB_TIMEOUT_MS = DEFAULTS.publishingDatabaseTimeoutMs;

/** The callback handler. */
export async function publishDue(req: PublishingRequest): Promise<Response> {
  const { config } = req.ctx.core;
  const secret = config.publishingSecret;
  if (!secret) {
    await req.request.body?.cancel().catch(() => {});
    return refuse('ProxySocialMisconfigured', 'PUBLISHING_SECRET is not set', req.cors);
  }
  if (!await publishKeyMatches(req.request.headers.get(PUBLISH_KEY_HEADER), secret)) {
    await req.request.body?.cancel().catch(() => {});
    return refuse('NotAllowed', 'Not allowed', req.cors);
  }
  if (config.token === null) {
    await req.request.body?.cancel().catch(() => {});
    return refuse('ProxyTokenMissing', `${config.tokenEnv} is not set`, req.cors);
  }
  const body = await readJson(
    req.request,
    req.state,
    DEFAULTS.jsonRouteBodyBytes,
    '{id}',
    req.cors,
    config.jsonMaxDepth,
  );
  if ('refused' in body) return body.refused;
  const id = isObject(body.value) ? body.value.id : undefined;
  if (typeof id !== 'string' || Object.keys(body.value as object).length !== 1) {
    return refuse('InvalidRequest', 'The body is not {id}', req.cors);
  }
  if (!POST_ID.test(id)) return refuse('PostNotFound', 'No such post', req.cors);
  const service = req.ctx.service;
  if (service === null) {
    return refuse('ProxyAuthMisconfigured', 'The publish queue needs a service-role key', req.cors);
  }
  const taken = await service.call('svc_post_take', { p_id: id, p_key: secret }, DB_TIMEOUT_MS);
  if (taken.status !== 200) return refuseDatabase(taken, req.cors);
  const result = await publish(req, taken.data as Post, config.token);
  const reported = await service.call('svc_post_report', {
    p_id: id,
    p_key: secret,
    p_outcome: result.outcome,
    p_permalink: result.outcome === 'published' ? httpsOrNull(result.permalink) : null,
    p_media_id: result.outcome === 'published' ? result.mediaId : null,
    p_error: result.outcome === 'failed' ? result.error : null,
  }, DB_TIMEOUT_MS);
  if (reported.status !== 200) return refuseDatabase(reported, req.cors);
  const post = reported.data as Post;
  const outcome: PublishOutcome = {
    id: post.id,
    status: post.status as PublishOutcome['status'],
    permalink: post.permalink,
    lastError: post.lastError,
  };
  return ok(outcome, req.cors);
}

function httpsOrNull(url: string | null): string | null {
  return url !== null && /^https:\/\//.test(url) ? url : null;
}

async function publish(req: PublishingRequest, post: Post, token: string): Promise<PublishResult> {
  const plan = planPublish(post);
  if ('failure' in plan) return { outcome: 'failed', error: plan.failure };
  const { core } = req.ctx;
  return await sendPublish(
    {
      fetch: core.fetch,
      upstream: core.config.upstream,
      token,
      timeoutMs: core.config.slowTimeoutMs,
    },
    plan.document,
    plan.field,
    plan.variables,
  );
}
