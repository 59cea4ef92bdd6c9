/**
 * POST /svc/graphql: SPEC "Route table" and "Order in which a GraphQL body is
 * checked". Other methods: 405 with allow: POST.
 */
import { runSteps } from '../admission/chain.ts';
import { newState } from '../admission/graphql_state.ts';
import type { GraphqlState } from '../admission/graphql_state.ts';
import { HTTP_STEPS } from '../admission/steps.ts';
import type { Core } from '../core.ts';
import { idsInAnswer } from '../graphql/mod.ts';
import type { PlainAnswer } from '../http/answer.ts';
import type { SvcRequest } from '../http/request.ts';
import { methodNotAllowedAnswer, refusalAnswer } from '../http/responses.ts';
import { forwardGraphql, upstreamAnswer } from '../upstream/forward_graphql.ts';
import type { Span } from '@opentelemetry/api';
import { endRefused } from '../observability/tracing.ts';
import { chargeRequest } from '../memory/requests.ts';
import { DEFAULTS } from '../config/defaults.ts';

/** Handles the GraphQL POST route; `cors` headers are added to every answer. */
export async function handleGraphql(
  core: Core,
  request: SvcRequest,
  cors: Record<string, string>,
): Promise<PlainAnswer> {
  if (request.method !== 'POST') return methodNotAllowedAnswer(['POST']);
  const state = newState(core, request);
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
  });
  core.metrics?.upstream('graphql', performance.now() - started);
  if ('refused' in outcome) {
    span?.setAttribute('svc.refusal.code', outcome.refused.code);
    span?.end();
    return refusalAnswer({ ...outcome.refused, headers: cors });
  }
  span?.setAttribute('svc.upstream.status', outcome.answer.status);
  span?.end();
  // the answer is held, and rewritten, until it is sent (src/memory/requests.ts)
  chargeRequest(state.request, outcome.answer.text.length * DEFAULTS.memoryAnswerPerChar);
  if (outcome.answer.status === 200) learnFromAnswer(state, outcome.answer.text);
  return upstreamAnswer(outcome.answer, cors, core.config.token);
}

/**
 * A request that named exactly one bot teaches the resource fence (SPEC "Resource binding
 * states"); the shared store notes the bindings (written once a caller names the ids).
 */
export function learnFromAnswer(state: GraphqlState, text: string): void {
  if (state.core.resourceFence.mode === 'off' || state.bots.size !== 1) return;
  answerLearner(state)(text);
}

/**
 * {@link learnFromAnswer} for every answer to one request that named exactly one bot (a
 * subscription's next frames): the bot and the ids the request carried are read once, and an
 * answer carrying no id costs its scan only.
 */
export function answerLearner(state: GraphqlState): (text: string) => void {
  const fence = state.core.resourceFence;
  const [bot] = state.bots;
  const carried = new Set(state.analyses.flatMap((a) => a.resources.map((r) => r.id)));
  return (text) => {
    if (fence.mode === 'off') return;
    const ids = idsInAnswer(text);
    if (ids.length === 0) return;
    const learned = fence.learn(bot, ids, carried); // not inside `?.(...)`: it must always run
    state.core.resourceStore?.learned(bot, learned);
  };
}
