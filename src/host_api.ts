/**
 * The core's one seam toward the hosts: everything a file under hosts/ takes from src/ comes
 * through this module, and nothing else in src/ is imported by a host (tests/hosts/seam_test.ts
 * holds the rule; hosts/README.md "The seam"). Users of the package import `mod.ts` (the public
 * surface); this module is the hosts' side of the same core (DESIGN "The shape: one core, thin
 * hosts").
 *
 * @module
 */

// the proxy and its options (SPEC "Options", "Startup behaviour and hosts")
export { createSvcProxy } from './proxy.ts';
export type { ConnInfo, SvcProxy, UpgradeDecision } from './proxy.ts';
export type { Env, SvcProxyOptions } from './proxy_options.ts';
export type { ResolvedConfig } from './config/resolved.ts';
export { DEFAULTS } from './config/defaults.ts';

// the request and answer shapes (src/http/request.ts, src/http/answer.ts)
export type { CallerSignal, HeaderReader, ReadAhead, SvcRequest } from './http/request.ts';
export { answerOf, type PlainAnswer, type SvcAnswer, toResponse } from './http/answer.ts';
export { mayPreread } from './http/preread.ts';

// answers and checks a host gives before the core (SPEC "Checks before any route")
export { type Refusal, refusal } from './http/error_codes.ts';
export { methodNotAllowed, plainAnswer, plainResponse, refusalResponse } from './http/responses.ts';
export { applySecurityHeaders, SECURITY_HEADERS } from './http/security_headers.ts';
export { checkHost, corsHeaders, isLoopbackName } from './http/host_origin.ts';
export { parseHost } from './http/host_header.ts';

// the GraphQL forward's transport a host may supply (SPEC "Forwarding rules")
export type { PostCall, PostText, TextAnswer } from './upstream/outbound.ts';
export {
  answerTooLarge,
  callerGone,
  upstreamTimedOut,
  upstreamUnreachable,
} from './upstream/outbound.ts';
/** One timer heap for every deadline of the process (src/ws/timer_heap.ts). */
export { SHARED_TIMERS, type TimerEntry } from './ws/timer_heap.ts';

// the relay's socket adapters (graphql-ws's `use/` pattern: one per runtime)
export { adaptWebSocket, adaptWsSocket, openWsUpstream, type UpstreamFactory } from './ws/mod.ts';

// a worker deployment's metrics (docs/operations.md "Metrics of a worker deployment")
export {
  acceptableText,
  mergeDeployment,
  retire,
  type WorkerText,
} from './observability/aggregate.ts';
export type { Families } from './observability/exposition.ts';
