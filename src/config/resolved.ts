/**
 * The resolved configuration: options, then environment, then defaults,
 * resolved once at startup and frozen. SPEC "Configuration states" and "Options".
 */

import type { MemoryBudget } from './memory_budget.ts';

/** Session gate state (SPEC "Configuration states"). */
export type GateState = 'on' | 'off' | 'misconfigured';

/** Resource fence mode (SPEC "Resource fence"). */
export type ResourceFenceMode = 'off' | 'bound' | 'strict';

/** A configuration problem, reported by variable name only; each turns health into 503. */
export type ConfigProblem =
  | 'ProxyTokenMissing'
  | 'ProxyAuthMisconfigured'
  | 'ProxyWorkspaceMissing'
  | 'ProxyAdminPasswordWeak';

/** The gate's backend settings (secrets kept here, never printed). */
export interface AuthConfig {
  state: GateState;
  url?: string;
  anonKey?: string;
  serviceRoleKey?: string;
  cacheTtlMs: number;
  rpcName: string;
}

/** Every setting the core reads, frozen. Durations in ms, sizes in bytes. */
export interface ResolvedConfig {
  upstream: string;
  healthPath: string;
  /** Not a spec path: /svc/metrics (docs/operations.md "Metrics"). */
  metricsPath: string;
  httpPath: string;
  wsPath: string;
  apiPath: string;
  authPath: string;
  publishingPath: string;
  adminPath: string;
  tokenEnv: string;
  /** The master token, or null when absent or containing whitespace. */
  token: string | null;
  workspaceId?: string;
  /** null: request-time fence; 'any': no fence; a list: frozen fence. */
  allowedBotIds: readonly string[] | 'any' | null;
  /** Request-time fence tuning; null when there is no token. */
  fence: { ttlMs: number; retryMs: number; timeoutMs: number } | null;
  auth: AuthConfig;
  timeoutMs: number;
  slowTimeoutMs: number;
  wsInitTimeoutMs: number;
  /** Lowercased origins without trailing slash; '*' means any origin. */
  allowedOrigins: readonly string[];
  anyOrigin: boolean;
  /** Hosts answered to (name or name:port, lowercased); null means the check is off. */
  allowedHosts: readonly string[] | null;
  loopbackOnly: boolean;
  restMaxConcurrent: number;
  graphqlMaxConcurrent: number;
  graphqlMaxBatch: number;
  /** Cost limits per document, checked right after step 11 (not spec numbers). */
  graphqlMaxDepth: number;
  graphqlMaxAliases: number;
  graphqlMaxRootFields: number;
  graphqlMaxDirectives: number;
  graphqlMaxTokens: number;
  /**
   * Levels (the outer object or array is 1): JSON from a client nested deeper is refused before it
   * is parsed (src/http/json_depth.ts); a whole number from 1 to DEFAULTS.jsonDepthHardMax.
   */
  jsonMaxDepth: number;
  /**
   * Bytes; upstream answers past it are cut off (docs/configuration.md "Upstream",
   * UPSTREAM_ANSWER_MAX_BYTES).
   */
  upstreamAnswerMaxBytes: number;
  /** The process's memory budget and where it came from (docs/operations.md "Memory"). */
  memoryBudget: MemoryBudget;
  wsMaxSockets: number;
  wsPreAuthSockets: number;
  /**
   * Relay keepalive (ms): silence before a ping, wait for its pong (docs/operations.md "Slow and
   * vanished peers on the relay").
   */
  wsPingIntervalMs: number;
  wsPongTimeoutMs: number;
  /** Relay flow control (docs/operations.md "Slow and vanished peers on the relay"): bytes, ms. */
  wsHighWaterBytes: number;
  wsLowWaterBytes: number;
  wsStallTimeoutMs: number;
  wsBufferCapBytes: number;
  wsFlowPollMs: number;
  tenantRequestsPerMinute: number;
  tenantMaxSockets: number;
  resourceFence: ResourceFenceMode;
  resourceStore: boolean;
  /**
   * Tenant limits and revocations shared through the backend (docs/operations.md "Limits across
   * processes"): on wherever the backend URL and the service-role key are set, unless
   * SVC_SHARED_LIMITS=off.
   */
  sharedLimits: boolean;
  operationAllowlist: boolean;
  operationAllowlistExtra: readonly string[];
  /** Document registry texts; undefined: no registry. */
  operations?: readonly string[];
  admin: {
    state: 'off' | 'on' | 'misconfigured';
    password?: string;
    cookieSalt: string;
    /** The deployment's own workspace (SVC_WORKSPACE_ID, else CLIENT_SVC_WORKSPACE_ID). */
    homeWorkspaceId?: string;
    /** Password throttle: free attempts, waits and the per-attempt pause (ms). */
    throttle: { freeAttempts: number; baseWaitMs: number; capMs: number; pauseMs: number };
  };
  trustForwardedFor: boolean;
  recoveryLinkLogging: boolean;
  publishingSecret?: string;
  bypassSecret?: string;
  mediaBucket: string;
  mediaQuotaMb: number;
  mediaTtlDays: number;
  publicUrl?: string;
  /** Log format (not in the spec): 'text' or 'json' (docs/operations.md "Logs"). */
  logFormat: 'text' | 'json';
  /** OTLP/HTTP receiver base URL (OTEL_EXPORTER_OTLP_ENDPOINT); traces off when unset. */
  otlpEndpoint?: string;
  /** /svc/metrics (not in the spec): served when enabled; `token` required from every caller when set. */
  metrics: { enabled: boolean; token?: string };
  openProxyAcknowledged: boolean;
  /** Outbound proxy with credentials masked, or undefined. */
  outboundProxy?: string;
  problems: readonly ConfigProblem[];
  /** Set when the deployment must refuse to serve (SPEC "Startup behaviour and hosts"). */
  refusal?: string;
}
