/**
 * POST /svc/api/filestorage/upload/{bot,livechat,plugin,widget,useraccount}:
 * SPEC "Route table" and "Forwarding rules" (authorization plus the request's
 * content-type, nothing else; the query string rebuilt from the parameters the
 * path takes; the body streamed under the 25 MiB ceiling; the upstream's answer
 * piped back with its status). The master token is replaced wherever the upstream's answer
 * echoes it, in the content-type and the body (SPEC "What the service does" 1; docs/operations.md
 * "The master token in answers").
 */
import { runSteps } from '../admission/chain.ts';
import { type GraphqlState, newState } from '../admission/graphql_state.ts';
import { busy } from '../http/busy.ts';
import { UPLOAD_STEPS } from '../admission/steps.ts';
import { DEFAULTS } from '../config/defaults.ts';
import type { Core } from '../core.ts';
import { cappedStream, declaredLength, tooLarge } from '../http/body.ts';
import type { RequestState } from '../http/request_state.ts';
import { type Refusal, refusal } from '../http/error_codes.ts';
import { methodNotAllowed, refusalResponse } from '../http/responses.ts';
import { applySecurityHeaders } from '../http/security_headers.ts';
import { redactText } from '../http/token_redaction.ts';
import { answerTooLarge, fetchWithDeadline } from '../upstream/outbound.ts';
import { pipedAnswer } from '../upstream/piped_answer.ts';
import { uploadAnswerLearner } from '../admission/answer_learning.ts';
import { UPLOAD_PATHS, type UploadRoute, uploadSearch } from '../admission/upload_paths.ts';

/** Handles every path under the api prefix (`rest` is the part after the prefix). */
export async function handleRest(
  core: Core,
  request: Request,
  requestState: RequestState,
  rest: string,
  cors: Record<string, string>,
): Promise<Response> {
  const refuse = (r: Refusal) => refusalResponse({ ...r, headers: { ...r.headers, ...cors } });
  const route = Object.hasOwn(UPLOAD_PATHS, rest) ? UPLOAD_PATHS[rest] : undefined;
  if (!route) {
    return refuse(refusal('RestPathNotAllowed', 'Only the file uploads are forwarded here'));
  }
  if (request.method !== 'POST') return methodNotAllowed(['POST']);
  const state = newState(core, request, requestState);
  const refused = await runSteps(UPLOAD_STEPS, state);
  if (refused) return refuse(refused);
  const release = core.restInFlight.tryAcquire();
  if (!release) return refuse(busy('uploads'));
  try {
    return await forwardUpload(state, rest, route, cors, refuse);
  } finally {
    release();
  }
}

async function forwardUpload(
  state: GraphqlState,
  rest: string,
  route: UploadRoute,
  cors: Record<string, string>,
  refuse: (r: Refusal) => Response,
): Promise<Response> {
  const { core } = state;
  const request = state.request as Request;
  const limit = DEFAULTS.restBodyBytes;
  const declared = declaredLength(request);
  if (declared !== null && declared > limit) {
    await request.body?.cancel().catch(() => {});
    return refuse(tooLarge(limit));
  }
  const headers: Record<string, string> = { authorization: `Bearer ${core.config.token}` };
  const type = request.headers.get('content-type');
  if (type) headers['content-type'] = type;
  const held = state.requestState!;
  const sent = held.bodyOf(request);
  const capped = sent ? cappedStream(sent, limit, (d) => held.charge(d)) : null;
  const forwarded = new URL(request.url).searchParams;
  const search = uploadSearch(route, forwarded);
  const url = `${core.config.upstream}/api${rest}${search}`;
  const outcome = await fetchWithDeadline(
    core.fetch,
    url,
    {
      method: 'POST',
      headers,
      body: capped?.stream ?? null,
      // @ts-ignore: duplex is required by fetch for a streamed body; not yet in every lib typing
      duplex: 'half',
    },
    core.config.timeoutMs,
    request.signal, // a caller gone cancels the upload (docs/operations.md "Faults")
  );
  if ('refused' in outcome) {
    return refuse(capped?.exceeded() ? tooLarge(limit) : outcome.refused);
  }
  const answer = outcome.response;
  const maxBytes = core.config.upstreamAnswerMaxBytes;
  if (Number(answer.headers.get('content-length') ?? NaN) > maxBytes) {
    await answer.body?.cancel().catch(() => {});
    outcome.done();
    return refuse(answerTooLarge(maxBytes));
  }
  const out = applySecurityHeaders(new Headers(cors));
  const answerType = answer.headers.get('content-type');
  if (answerType) out.set('content-type', redactText(answerType, core.config.token));
  if (!answer.body) outcome.done();
  const learner = answer.status === 200 ? uploadAnswerLearner(state, search) : undefined;
  const body = answer.body
    ? pipedAnswer(answer.body, maxBytes, outcome.done, core.config.token, learner)
    : null;
  return new Response(body, { status: answer.status, headers: out });
}
