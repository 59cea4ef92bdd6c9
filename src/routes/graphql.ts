/**
 * POST /svc/graphql: SPEC "Route table" and "Order in which a GraphQL body is
 * checked". Other methods: 405 with allow: POST.
 */
import { runSteps } from '../admission/chain.ts';
import { newState } from '../admission/graphql_state.ts';
import { learnFromAnswer } from '../admission/answer_learning.ts';
import type { GraphqlState } from '../admission/graphql_state.ts';
import { HTTP_STEPS } from '../admission/steps.ts';
import type { Core } from '../core.ts';
import type { PlainAnswer } from '../http/answer.ts';
import type { SvcRequest } from '../http/request.ts';
import { methodNotAllowedAnswer, refusalAnswer } from '../http/responses.ts';
import { forwardGraphql, upstreamAnswer } from '../upstream/forward_graphql.ts';
import type { Span } from '@opentelemetry/api';
import { endRefused } from '../observability/tracing.ts';
import type { RequestState } from '../http/request_state.ts';
import { DEFAULTS } from '../config/defaults.ts';

/** Handles the GraphQL POST route; `cors` headers are added to every answer. */
export async function handleGraphql(
  core: Core,
  request: SvcRequest,
  requestState: RequestState,
  cors: Record<string, string>,
): Promise<PlainAnswer> {
  if (request.method !== 'POST') return methodNotAllowedAnswer(['POST']);
  const state = newState(core, request, requestState);
  const { metrics, tracing } = core;
  const span = tracing?.startRoot('svc.graphql');
  try {
    let refusedStep = 0;
    const refused = await runSteps(
      HTTP_STEPS,
      state,
      0,
      metrics || span ? (step) => refusedStep = step.step : undefined,
    );
    if (refused) {
      metrics?.refusal(refused.code, String(refusedStep));
      const response = refusalAnswer({ ...refused, headers: { ...refused.headers, ...cors } });
      if (span) endRefused(span, refused.code, refusedStep, response.status);
      return response;
    }
    const response = await forward(core, state, cors, span);
    span?.setAttribute('svc.status', response.status);
    span?.end();
    return response;
  } finally {
    for (const release of state.releases) release();
  }
}

/** Step 21 and the answer: the upstream call (timed, traced), then the rewritten answer. */
async function forward(
  core: Core,
  state: GraphqlState,
  cors: Record<string, string>,
  parent: Span | undefined,
): Promise<PlainAnswer> {
  const span = parent && core.tracing?.startChild('svc.upstream', parent);
  const started = core.metrics ? performance.now() : 0;
  const outcome = await forwardGraphql(core.postText, {
    upstream: core.config.upstream,
    token: core.config.token!,
    entries: state.forward,
    batch: state.body!.batch,
    timeoutMs: state.analyses.some((a) => a.slow)
      ? core.config.slowTimeoutMs
      : core.config.timeoutMs,
    maxAnswerBytes: core.config.upstreamAnswerMaxBytes,
    // a caller that goes away cancels the call, and its slot is released at once
    // (docs/operations.md "Faults")
    caller: state.request?.signal,
    // the answer is held from its first byte: its chunks and their joined copy
    // (docs/operations.md "Memory")
    onAnswerBytes: (bytes) => state.requestState?.charge(bytes * DEFAULTS.memoryBodyBytesPerByte),
  });
  core.metrics?.upstream('graphql', performance.now() - started);
  if ('refused' in outcome) {
    span?.setAttribute('svc.refusal.code', outcome.refused.code);
    span?.end();
    return refusalAnswer({ ...outcome.refused, headers: cors });
  }
  span?.setAttribute('svc.upstream.status', outcome.answer.status);
  span?.end();
  // the answer is held, and rewritten, until it is sent (src/http/request_state.ts)
  state.requestState?.charge(outcome.answer.text.length * DEFAULTS.memoryAnswerPerChar);
  if (outcome.answer.status === 200) learnFromAnswer(state, outcome.answer.text);
  return upstreamAnswer(outcome.answer, cors, core.config.token);
}
