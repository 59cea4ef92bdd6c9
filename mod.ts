/**
 * svc-gateway: a token-injecting gateway for browser apps on a bot platform's
 * GraphQL API. The public surface: `createSvcProxy(options, env)`, its types,
 * and the error-code registry. See README.md and SPEC (the behaviour).
 *
 * @module
 */
export { createSvcProxy } from './src/proxy.ts';
export type { ConnInfo, SvcProxy, UpgradeDecision } from './src/proxy.ts';
export type { AuthOptions, Env, FenceOptions, SvcProxyOptions } from './src/config/options.ts';
export type { ResolvedConfig } from './src/config/resolved.ts';
export { ERROR_STATUS } from './src/http/error_codes.ts';
export type { ErrorCode, Refusal } from './src/http/error_codes.ts';
