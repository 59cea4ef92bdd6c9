/**
 * The caller of a bot-scoped publishing route (posts, media): the session gate, then ?botID=
 * (required, once, any spelling of the name), key-shaped, and fenced like a GraphQL bot: the
 * caller must own it (SPEC "Publish queue": "?botID= required and fenced"; "Order in which a
 * GraphQL body is checked" steps 2 and 19).
 */
import { botNotAllowed } from '../../admission/fence_steps.ts';
import { refusalResponse } from '../../http/responses.ts';
import { botIdValues } from '../../admission/upload_paths.ts';
import { refuse } from './answers.ts';
import type { PublishingRequest } from './context.ts';

/** A bot id usable as a storage prefix (facts.json publishingMediaTypes.storage.botIdKeyRegex). */
export const BOT_KEY = /^[A-Za-z0-9_-]{1,64}$/;

/** The admitted caller: its bearer JWT and the bot it named. */
export interface BotCaller {
  jwt: string;
  botId: string;
}

/** The caller's session token (the gate admitted it), or ''. */
function bearerOf(request: Request): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '');
  return match ? match[1] : '';
}

/**
 * Admits the session as the gate answers (401 AuthSessionRequired, 403 AuthTenantForbidden, 503
 * ProxyAuthUnavailable, 500 ProxyAuthMisconfigured): the caller's JWT and bot set.
 */
export async function admitSession(
  req: PublishingRequest,
): Promise<{ jwt: string; botIds: ReadonlySet<string> | null } | Response> {
  const verdict = await req.ctx.core.gate.admit(req.request.headers.get('authorization'));
  if ('refused' in verdict) {
    return refusalResponse({
      ...verdict.refused,
      headers: { ...req.cors, ...verdict.refused.headers },
    });
  }
  return { jwt: bearerOf(req.request), botIds: verdict.session.botIds };
}

/**
 * The session, then ?botID=: none or two 400 InvalidRequest; not key-shaped 422 BadBotId; an
 * empty bot set 403 AuthTenantForbidden; another's bot 403 BotNotAllowed.
 */
export async function admitBotCaller(req: PublishingRequest): Promise<BotCaller | Response> {
  const session = await admitSession(req);
  if (session instanceof Response) return session;
  const bots = botIdValues(new URL(req.request.url).searchParams);
  if (bots.length !== 1) {
    return refuse('InvalidRequest', 'Name exactly one botID query parameter', req.cors);
  }
  const botId = bots[0];
  if (!BOT_KEY.test(botId)) return refuse('BadBotId', 'The botID is not key-shaped', req.cors);
  const owned = session.botIds;
  if (owned !== null && owned.size === 0) {
    return refuse(
      'AuthTenantForbidden',
      'This account has no bot yet; call provision first',
      req.cors,
    );
  }
  if (owned !== null && !owned.has(botId)) {
    const refused = botNotAllowed(botId, true);
    return refuse(refused.code, refused.message, req.cors);
  }
  return { jwt: session.jwt, botId };
}
