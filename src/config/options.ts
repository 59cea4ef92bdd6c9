/**
 * The options `createSvcProxy(options, env)` takes: SPEC "Limits" > "Options".
 * Each falls back to its environment variable, then to `DEFAULTS`.
 */

import type { NumberLike } from './parse.ts';

/** Tuning of the request-time bot fence (SPEC "Options": fence). All in ms. */
export interface FenceOptions {
  ttlMs?: number;
  retryMs?: number;
  timeoutMs?: number;
}

/** Forces the session gate on (SPEC "Configuration states"). */
export interface AuthOptions {
  /** CLIENT_BACKEND_URL when omitted. */
  url?: string;
  /** CLIENT_BACKEND_ANON_KEY when omitted. */
  anonKey?: string;
  /** BACKEND_SERVICE_ROLE_KEY when omitted. */
  serviceRoleKey?: string;
  /** Bot-set cache lifetime, ms (default 30000). */
  cacheTtlMs?: number;
  /** RPC giving the caller's bot set (default svc_my_bot_ids). */
  rpcName?: string;
}

/**
 * Tuning of the admin password throttle (not a spec option; SPEC "Authentication" 4 leaves the
 * numbers open). All in ms except `freeAttempts`; defaults in src/config/defaults.ts.
 */
export interface AdminThrottleOptions {
  /** Failed attempts per client before any wait (default 5). */
  freeAttempts?: number;
  /** First wait after the free attempts; doubles per further failure (default 30000). */
  baseWaitMs?: number;
  /** Longest wait (default 900000). */
  capMs?: number;
  /** Fixed pause of every attempt (default 500; tests set a small value). */
  pauseMs?: number;
}

/** A number, or a string read as one (environment style). */
export type { NumberLike };

/** Every option of the spec's options table, plus the host hooks below. */
export interface ConfigOptions {
  upstream?: string;
  httpPath?: string;
  wsPath?: string;
  apiPath?: string;
  authPath?: string;
  publishingPath?: string;
  adminPath?: string;
  tokenEnv?: string;
  token?: string;
  workspaceId?: string;
  allowedBotIds?: readonly string[] | 'any';
  fence?: FenceOptions;
  auth?: AuthOptions | false;
  timeoutMs?: NumberLike;
  slowTimeoutMs?: NumberLike;
  wsInitTimeoutMs?: NumberLike;
  allowedOrigins?: readonly string[] | string;
  allowedHosts?: readonly string[] | string | true;
  loopbackOnly?: boolean;
  restMaxConcurrent?: NumberLike;
  graphqlMaxConcurrent?: NumberLike;
  graphqlMaxBatch?: NumberLike;
  /** Cost limits per document (not spec options; GRAPHQL_MAX_DEPTH ... GRAPHQL_MAX_TOKENS). */
  graphqlMaxDepth?: NumberLike;
  graphqlMaxAliases?: NumberLike;
  graphqlMaxRootFields?: NumberLike;
  graphqlMaxDirectives?: NumberLike;
  graphqlMaxTokens?: NumberLike;
  /**
   * Deepest nesting of JSON a client sends, the outer object or array being level 1 (not a spec
   * option; JSON_MAX_DEPTH, default 128, at most 1000; docs/configuration.md "Ceilings").
   */
  jsonMaxDepth?: NumberLike;
  /**
   * Upstream answers over this many bytes are cut off (not a spec option; docs/configuration.md
   * "Upstream", UPSTREAM_ANSWER_MAX_BYTES).
   */
  upstreamAnswerMaxBytes?: NumberLike;
  /**
   * The process's memory budget in bytes (not a spec option; MEMORY_BUDGET_BYTES): default a
   * share of the container's limit, else a fixed default (docs/operations.md "Memory").
   */
  memoryBudgetBytes?: NumberLike;
  wsMaxSockets?: NumberLike;
  wsPreAuthSockets?: NumberLike;
  /**
   * Relay keepalive and flow control (docs/operations.md "Slow and vanished peers on the relay";
   * WS_PING_INTERVAL_MS ... WS_FLOW_POLL_MS).
   */
  wsPingIntervalMs?: NumberLike;
  wsPongTimeoutMs?: NumberLike;
  wsHighWaterBytes?: NumberLike;
  wsLowWaterBytes?: NumberLike;
  wsStallTimeoutMs?: NumberLike;
  wsBufferCapBytes?: NumberLike;
  wsFlowPollMs?: NumberLike;
  tenantRequestsPerMinute?: NumberLike;
  tenantMaxSockets?: NumberLike;
  resourceFence?: string;
  resourceStore?: string;
  /**
   * Not a spec option (docs/operations.md "Limits across processes"): 'off' keeps per-process
   * tenant limits with a service-role key.
   */
  sharedLimits?: string;
  operationAllowlist?: string | boolean;
  operationAllowlistExtra?: readonly string[] | string;
  /** Document registry: the app's documents (SPEC "Document checks in detail"). */
  operations?: readonly string[];
  adminPassword?: string;
  adminCookieSalt?: string;
  /** Not a spec option: the password throttle's numbers. */
  adminThrottle?: AdminThrottleOptions;
  trustForwardedFor?: string | boolean;
  recoveryLinkLogging?: string | boolean;
  publishingSecret?: string;
  bypassSecret?: string;
  mediaBucket?: string;
  mediaQuotaMb?: NumberLike;
  mediaTtlDays?: NumberLike;
  publicUrl?: string;
  /**
   * Not a spec option: 'text' (default) or 'json' lines (LOG_FORMAT; docs/operations.md "Logs").
   */
  logFormat?: 'text' | 'json';
  /** Not a spec option: serve /svc/metrics to loopback callers (METRICS=1). */
  metrics?: string | boolean;
  /** Not a spec option: serve /svc/metrics to callers with this bearer token only (METRICS_TOKEN). */
  metricsToken?: string;
}

/** The environment bag: process environment over an env file. */
export type Env = Readonly<Record<string, string | undefined>>;
