/**
 * Every default and ceiling of the spec, in one table.
 *
 * Implements SPEC "Limits" ("Ceilings" and the default column of "Options").
 * Nothing else in the code base writes one of these numbers: it reads them
 * from here, or from the resolved configuration built on top of this table.
 * Sizes are bytes, durations milliseconds.
 */
export const DEFAULTS = {
  // Paths (SPEC "Options": httpPath ... adminPath; health is fixed under the prefix)
  healthPath: '/svc/healthz',
  httpPath: '/svc/graphql',
  apiPath: '/svc/api',
  authPath: '/svc/auth',
  publishingPath: '/svc/publishing',
  adminPath: '/svc/admin',
  tokenEnv: 'SVC_TOKEN',
  /** Built-in upstream address (facts.json upstreamUrls.defaultBase). */
  upstream: 'https://upstream.invalid',

  // Upstream budgets
  timeoutMs: 30_000,
  slowTimeoutMs: 290_000,
  wsInitTimeoutMs: 5_000,

  // Request-time bot fence (option fence)
  fenceTtlMs: 60_000,
  fenceRetryMs: 5_000,
  fenceTimeoutMs: 10_000,
  /** How soon a stale fence answer is asked for again after a failed refresh. */
  fenceStaleRetryMs: 5_000,

  // Session gate (option auth)
  authCacheTtlMs: 30_000,
  authRpcName: 'svc_my_bot_ids',
  gateMissesPerMinute: 600,
  /** Share of the miss budget held for already-admitted sessions. */
  gateMissesHeldShare: 0.2,
  /** Deadline of one svc_my_bot_ids call (past it: 503 ProxyAuthUnavailable). */
  gateLookupTimeoutMs: 5_000,
  /** Gate answers cached per token hash, and admitted token hashes remembered. */
  gateSessionsCached: 10_000,

  // Ceilings configurable by option or environment
  restMaxConcurrent: 8,
  graphqlMaxConcurrent: 32,
  graphqlMaxBatch: 25,
  wsMaxSockets: 256,
  wsPreAuthSockets: 32,
  tenantRequestsPerMinute: 600,
  tenantMaxSockets: 8,
  /** The shared no-bot bucket gets this share of a tenant's rate and sockets. */
  noBotBucketShare: 0.1,
  tenantsTracked: 10_000,
  tenantIdleMs: 5 * 60_000,

  // Fixed ceilings
  graphqlBodyBytes: 2 * 1024 * 1024,
  restBodyBytes: 25 * 1024 * 1024,
  jsonRouteBodyBytes: 2 * 1024 * 1024,
  adminBodyBytes: 64 * 1024,
  adminSessionBodyBytes: 4 * 1024,
  mediaFileBytes: 25 * 1024 * 1024,
  resourceIdsPerRequest: 500,
  busyRetryAfterSeconds: 5,
  /** Oversize body: the socket is destroyed this long after the 413 if the caller keeps sending. */
  oversizeDestroyMs: 250,

  // WebSocket relay ceilings
  browserFrameBytes: 1024 * 1024,
  upstreamFrameBytes: 16 * 1024 * 1024,
  heldFramesBeforeUpstream: 64,
  heldBytesBeforeUpstream: 512 * 1024,
  heldFramesBehindLookup: 64,
  subscriptionsPerSocket: 128,
  socketLifeMs: 60 * 60_000,
  /** Keepalive period on both relay legs (not a spec number): a leg silent one period after a ping is dead. */
  socketPingIntervalMs: 30_000,
  /** Wait for the upstream's connection_ack after it opened (not a spec number); then 1012. */
  upstreamAckTimeoutMs: 10_000,

  // Resource fence
  resourceBindings: 50_000,
  resourceBindingTtlMs: 24 * 60 * 60_000,
  resourceIdsLearnedPerAnswer: 5_000,
  storeLookupDeadlineMs: 2_000,
  storeBatchMs: 250,
  storeBatchIds: 500,
  storeRewriteAfterMs: 6 * 60 * 60_000,
  storeUnavailableMs: 5_000,
  storeUnknownRecheckMs: 60_000,
  /** Ids remembered as unknown to the store, and ids remembered as written. */
  storeIdsTracked: 50_000,

  // Admin panel and publishing
  adminPasswordMinLength: 16,
  adminCookieLifetimeMs: 2 * 60 * 60_000,
  mediaBucket: 'svc-pub-media',
  mediaQuotaMb: 512,
  mediaTtlDays: 30,
} as const;

/** The option names whose value is a ceiling: a value that is not a positive number gives the default. */
export const CEILING_OPTIONS = [
  ['restMaxConcurrent', 'REST_MAX_CONCURRENT'],
  ['graphqlMaxConcurrent', 'GRAPHQL_MAX_CONCURRENT'],
  ['graphqlMaxBatch', 'GRAPHQL_MAX_BATCH'],
  ['wsMaxSockets', 'WS_MAX_SOCKETS'],
  ['wsPreAuthSockets', 'WS_PRE_AUTH_SOCKETS'],
  ['tenantRequestsPerMinute', 'TENANT_REQUESTS_PER_MINUTE'],
  ['tenantMaxSockets', 'TENANT_MAX_SOCKETS'],
  ['timeoutMs', null],
  ['slowTimeoutMs', null],
  ['wsInitTimeoutMs', null],
  ['mediaQuotaMb', 'PUBLISHING_MEDIA_QUOTA_MB'],
  ['mediaTtlDays', 'PUBLISHING_MEDIA_TTL_DAYS'],
] as const;

/** A ceiling option's name. */
export type CeilingOption = (typeof CEILING_OPTIONS)[number][0];
