/**
 * WS /svc/graphql: the relay wired to the core. SPEC "Route table" (WS row),
 * "Events" and the socket paragraph of "Order in which a GraphQL body is
 * checked": a subscribe frame runs the socket chain (registry first among the
 * document checks); a refusal is an error frame on its id with the HTTP
 * route's code, the socket left open; with the gate off an unresolvable fence
 * closes 1013.
 */
import { runSteps } from '../admission/chain.ts';
import type { Session } from '../admission/gate.ts';
import { type GraphqlState, newState } from '../admission/graphql_state.ts';
import type { Refusal } from '../http/error_codes.ts';
import { SOCKET_STEPS } from '../admission/steps.ts';
import type { Core } from '../core.ts';
import { scrubCloseReason, scrubErrors } from '../graphql/mod.ts';
import {
  CLOSE,
  createRelay,
  type Relay,
  type ResultLike,
  type SubscribeVerdict,
} from '../ws/mod.ts';
import type { Admission, AdmittedSession } from '../ws/mod.ts';
import { answerLearner } from '../admission/answer_learning.ts';
import { upstreamSocketFactory, upstreamSocketUrl } from '../upstream/socket_proxy.ts';

/** An admitted socket's session as the relay carries it: the gate's session inside. */
export interface SocketSession extends AdmittedSession {
  gate: Session;
}

/**
 * Runs the socket chain over one subscribe payload: synchronously when no
 * step has to wait, so the relay forwards at once (only a pending lookup
 * holds the frames behind it).
 */
export function checkSubscribe(
  core: Core,
  payload: unknown,
  admitted: AdmittedSession,
): SubscribeVerdict | Promise<SubscribeVerdict> {
  const state = newState(core, null, null, payload);
  state.session = (admitted as SocketSession).gate ?? null;
  const refused = runSteps(SOCKET_STEPS, state);
  return refused instanceof Promise
    ? refused.then((r) => verdictOf(state, r))
    : verdictOf(state, refused);
}

/** The relay's verdict for a chain outcome. */
function verdictOf(state: GraphqlState, refused: Refusal | null): SubscribeVerdict {
  const core = state.core;
  if (refused) {
    if (refused.code === 'ProxyFenceUnavailable' && core.config.auth.state !== 'on') {
      return {
        ok: false,
        closeCode: CLOSE.fenceUnavailable.code,
        reason: CLOSE.fenceUnavailable.reason,
      };
    }
    return { ok: false, code: refused.code, message: refused.message };
  }
  const [entry] = state.forward;
  const verdict: SubscribeVerdict = {
    ok: true,
    payload: { query: entry.query, operationName: entry.operationName, variables: entry.variables },
  };
  if (state.bots.size === 1 && core.resourceFence.mode !== 'off') {
    verdict.learn = answerLearner(state);
  }
  return verdict;
}

/**
 * The relay for this core. `admit` is the gate's socket admission of a connection_init payload
 * (src/admission/socket_admission.ts admitSocket, gate on or off).
 */
export function createCoreRelay(
  core: Core,
  admit: (payload: unknown) => Promise<Admission>,
): Relay {
  const wsUrl = upstreamSocketUrl(core.config.upstream);
  return createRelay({
    upstreamWsUrl: wsUrl,
    token: () => core.config.token,
    limits: {
      wsMaxSockets: core.config.wsMaxSockets,
      wsPreAuthSockets: core.config.wsPreAuthSockets,
      wsInitTimeoutMs: core.config.wsInitTimeoutMs,
      wsPingIntervalMs: core.config.wsPingIntervalMs,
      wsPongTimeoutMs: core.config.wsPongTimeoutMs,
      wsHighWaterBytes: core.config.wsHighWaterBytes,
      wsLowWaterBytes: core.config.wsLowWaterBytes,
      wsStallTimeoutMs: core.config.wsStallTimeoutMs,
      wsBufferCapBytes: core.config.wsBufferCapBytes,
      wsFlowPollMs: core.config.wsFlowPollMs,
      jsonMaxDepth: core.config.jsonMaxDepth,
    },
    admit,
    checkSubscribe: (payload, admitted) => checkSubscribe(core, payload, admitted),
    rewriteErrors: (result) => scrubErrors(result) as ResultLike,
    frameRelayed: core.metrics ? () => core.metrics!.frame() : undefined,
    stallClosed: core.metrics ? (leg, cause) => core.metrics!.stallClose(leg, cause) : undefined,
    memory: core.memory ?? undefined,
    traceSubscription: core.tracing
      ? () => endOnce(core.tracing!.startRoot('svc.subscription'))
      : undefined,
    rewriteCloseReason: scrubCloseReason,
    openUpstream: upstreamSocketFactory(wsUrl, core.upstreamSocket),
    log: core.log,
  });
}

/** Ends `span` the first time the returned function is called. */
function endOnce(span: { end(): void }): () => void {
  let ended = false;
  return () => {
    if (!ended) span.end();
    ended = true;
  };
}
