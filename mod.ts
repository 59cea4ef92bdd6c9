/**
 * svc-gateway: a token-injecting gateway for browser apps on a bot platform's
 * GraphQL API. The public surface: `createSvcProxy(options, env)`, its types,
 * and the error-code registry. See README.md and SPEC (the behaviour).
 *
 * @module
 */
export { createSvcProxy } from './src/proxy.ts';
export type { ConnInfo, SvcProxy, UpgradeDecision } from './src/proxy.ts';
/** The request every entry reads (a Web Request is one) and the answer `serve` gives. */
export type { CallerSignal, HeaderReader, ReadAhead, SvcRequest } from './src/http/request.ts';
export type { SvcAnswer } from './src/http/answer.ts';
export type {
  AdminThrottleOptions,
  AuthOptions,
  ConfigOptions,
  Env,
  FenceOptions,
} from './src/config/options.ts';
export type { HostHooks, SvcProxyOptions } from './src/proxy_options.ts';
/** Request and response shapes of /svc/admin (type-only). */
export type * from './src/routes/admin/types.ts';
/** Answer shapes of /svc/auth: provision, bots, recovery-link (type-only). */
export type * from './src/routes/auth/types.ts';
/** The publish queue's shapes: Post, PostInput, PostStatus, ... (type-only). */
export type * from './src/routes/publishing/types.ts';
export type { ResolvedConfig } from './src/config/resolved.ts';
export { ERROR_STATUS } from './src/http/error_codes.ts';
export type { ErrorCode, Refusal } from './src/http/error_codes.ts';
