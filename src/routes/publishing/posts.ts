/**
 * GET/POST /posts and PATCH/DELETE /posts/<id>, all with ?botID= (SPEC "Publish queue"). The
 * post is validated in SQL (svc_post_create / svc_post_update: the bad_* hints → 422 BadPost,
 * caption_too_long → 422 CaptionTooLong); the functions run as the caller and fence the bot
 * again by svc_my_bot_ids. A body that is not a JSON object: 400 InvalidRequest.
 */
import { DEFAULTS } from '../../config/defaults.ts';
import { isObject, ok, readJson, refuse, refuseDatabase } from './answers.ts';
import { admitBotCaller } from './caller.ts';
import type { PublishingRequest } from './context.ts';

/** A post id (facts.json publishingPostRules.limits.postIdRegex, case-insensitive). */
export const POST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Deadline of one posts database call, ms. */
const DB_TIMEOUT_MS = DEFAULTS.publishingDatabaseTimeoutMs;

async function call(
  req: PublishingRequest,
  jwt: string,
  fn: string,
  args: Record<string, unknown>,
): Promise<Response> {
  const user = req.ctx.user;
  if (user === null) {
    return refuse(
      'ProxyAuthMisconfigured',
      'The publish queue needs the session backend',
      req.cors,
    );
  }
  const result = await user.call(fn, args, DB_TIMEOUT_MS, jwt);
  if (result.status >= 200 && result.status < 300) return ok(result.data, req.cors);
  return refuseDatabase(result, req.cors);
}

/** The post object of the body, or the refusal (400 InvalidRequest; 413 past 2 MiB). */
async function postBody(req: PublishingRequest): Promise<{ post: unknown } | Response> {
  const body = await readJson(
    req.request,
    req.state,
    DEFAULTS.jsonRouteBodyBytes,
    'a post',
    req.cors,
    req.ctx.core.config.jsonMaxDepth,
  );
  if ('refused' in body) return body.refused;
  if (!isObject(body.value)) return refuse('InvalidRequest', 'The body is not a post', req.cors);
  return { post: body.value };
}

/** GET /posts?botID=: the bot's posts (at most 1000), Post[]. */
export async function listPosts(req: PublishingRequest): Promise<Response> {
  const caller = await admitBotCaller(req);
  if (caller instanceof Response) return caller;
  return await call(req, caller.jwt, 'svc_posts_list', { p_bot_id: caller.botId });
}

/** POST /posts?botID=: a new post from a PostInput (kind required); answers 201 Post. */
export async function createPost(req: PublishingRequest): Promise<Response> {
  const caller = await admitBotCaller(req);
  if (caller instanceof Response) return caller;
  const body = await postBody(req);
  if (body instanceof Response) return body;
  const answer = await call(req, caller.jwt, 'svc_post_create', {
    p_bot_id: caller.botId,
    p_post: body.post,
  });
  return answer.status === 200 ? ok(await answer.json(), req.cors, 201) : answer;
}

/** PATCH /posts/<id>?botID=: edits a draft, scheduled or failed post; answers Post. */
export async function updatePost(req: PublishingRequest): Promise<Response> {
  const caller = await admitBotCaller(req);
  if (caller instanceof Response) return caller;
  const body = await postBody(req);
  if (body instanceof Response) return body;
  return await call(req, caller.jwt, 'svc_post_update', {
    p_bot_id: caller.botId,
    p_id: req.id,
    p_patch: body.post,
  });
}

/** DELETE /posts/<id>?botID=: drops the post (not while publishing); answers {id}. */
export async function deletePost(req: PublishingRequest): Promise<Response> {
  const caller = await admitBotCaller(req);
  if (caller instanceof Response) return caller;
  return await call(req, caller.jwt, 'svc_post_delete', { p_bot_id: caller.botId, p_id: req.id });
}
