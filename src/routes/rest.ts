/**
 * POST /svc/api/filestorage/upload/{bot,livechat,plugin,widget,useraccount}:
 * SPEC "Route table" and "Forwarding rules" (authorization plus the request's
 * content-type, nothing else; the body streamed under the 25 MiB ceiling; the
 * upstream's answer piped back with its status).
 */
import { busy } from '../admission/in_flight.ts';
import { botNotAllowed } from '../admission/fence_steps.ts';
import { tenantBusy } from '../admission/tenants.ts';
import { DEFAULTS } from '../config/defaults.ts';
import type { Core } from '../core.ts';
import { cappedStream, declaredLength, tooLarge } from '../http/body.ts';
import { type Refusal, refusal } from '../http/error_codes.ts';
import { methodNotAllowed, refusalResponse } from '../http/responses.ts';
import { applySecurityHeaders } from '../http/security_headers.ts';
import { fetchWithDeadline } from '../upstream/outbound.ts';
import { botIdValues, UPLOAD_PATHS } from './rest_uploads.ts';

/**
 * Checks an upload before any byte is forwarded, in the GraphQL route's order: gate, master
 * token, the tenant's minute (429 TenantBusy), then scope and bot fence. The bot id (or null
 * for useraccount) when admitted.
 */
async function admitUpload(
  core: Core,
  request: Request,
  scope: 'bot' | 'account',
): Promise<{ bot: string | null } | { refused: Refusal }> {
  const verdict = await core.gate.admit(request.headers.get('authorization'));
  if ('refused' in verdict) return verdict;
  if (core.config.token === null) {
    return {
      refused: refusal('ProxyTokenMissing', 'The service proxy has no master token configured'),
    };
  }
  const tenant = verdict.session.tenantKey;
  if (tenant !== undefined && tenant !== null && !core.tenants.takeRequest(tenant)) {
    return { refused: tenantBusy() };
  }
  const gateOn = core.config.auth.state === 'on';
  if (scope === 'account') {
    if (gateOn) {
      return {
        refused: refusal('AccountOperationBlocked', 'Account uploads are not available here'),
      };
    }
    return { bot: null };
  }
  const bots = botIdValues(new URL(request.url).searchParams);
  if (bots.length !== 1) {
    return {
      refused: refusal('InvalidRequest', 'An upload names exactly one botID query parameter'),
    };
  }
  const fence = verdict.session.botIds ?? await core.botFence.resolve();
  if (fence === 'unavailable') {
    return {
      refused: refusal(
        'ProxyFenceUnavailable',
        'The proxy cannot tell which bots this deployment may use right now',
      ),
    };
  }
  if (fence !== 'any') {
    if (gateOn && fence.size === 0) {
      return {
        refused: refusal(
          'AuthTenantForbidden',
          'This account has no bot yet; call provision first',
        ),
      };
    }
    if (!fence.has(bots[0])) return { refused: botNotAllowed(bots[0], gateOn) };
  }
  return { bot: bots[0] };
}

/** Handles every path under the api prefix (`rest` is the part after the prefix). */
export async function handleRest(
  core: Core,
  request: Request,
  rest: string,
  cors: Record<string, string>,
): Promise<Response> {
  const refuse = (r: Refusal) => refusalResponse({ ...r, headers: { ...r.headers, ...cors } });
  const scope = UPLOAD_PATHS[rest];
  if (!scope) {
    return refuse(refusal('RestPathNotAllowed', 'Only the file uploads are forwarded here'));
  }
  if (request.method !== 'POST') return methodNotAllowed(['POST']);
  const admitted = await admitUpload(core, request, scope);
  if ('refused' in admitted) return refuse(admitted.refused);
  const release = core.restInFlight.tryAcquire();
  if (!release) return refuse(busy('uploads'));
  try {
    return await forwardUpload(core, request, rest, cors, refuse);
  } finally {
    release();
  }
}

async function forwardUpload(
  core: Core,
  request: Request,
  rest: string,
  cors: Record<string, string>,
  refuse: (r: Refusal) => Response,
): Promise<Response> {
  const limit = DEFAULTS.restBodyBytes;
  const declared = declaredLength(request);
  if (declared !== null && declared > limit) {
    await request.body?.cancel().catch(() => {});
    return refuse(tooLarge(limit));
  }
  const headers: Record<string, string> = { authorization: `Bearer ${core.config.token}` };
  const type = request.headers.get('content-type');
  if (type) headers['content-type'] = type;
  const capped = request.body ? cappedStream(request.body, limit) : null;
  const url = `${core.config.upstream}/api${rest}${new URL(request.url).search}`;
  const outcome = await fetchWithDeadline(core.fetch, url, {
    method: 'POST',
    headers,
    body: capped?.stream ?? null,
    // @ts-ignore: duplex is required by fetch for a streamed body; not yet in every lib typing
    duplex: 'half',
  }, core.config.timeoutMs);
  if ('refused' in outcome) {
    return refuse(capped?.exceeded() ? tooLarge(limit) : outcome.refused);
  }
  const answer = outcome.response;
  const out = applySecurityHeaders(new Headers(cors));
  const answerType = answer.headers.get('content-type');
  if (answerType) out.set('content-type', answerType);
  const body = answer.body?.pipeThrough(
    new TransformStream({ flush: () => outcome.done() }),
  ) ?? null;
  if (!answer.body) outcome.done();
  return new Response(body, { status: answer.status, headers: out });
}
