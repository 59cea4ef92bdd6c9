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
  /**
   * Not a spec path: the Prometheus metrics (docs/operations.md "Metrics"), when METRICS or
   * METRICS_TOKEN.
   */
  metricsPath: '/svc/metrics',
  /** Upper bounds (ms) of the upstream latency histogram's buckets. */
  metricsBucketsMs: [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000],
  /** Traces: how long spans are batched before an export (ms). */
  traceExportDelayMs: 1_000,
  /**
   * A worker deployment's scrape (docs/operations.md "Metrics of a worker deployment"): how long
   * the answering worker waits for the others (ms; one wait for all, asked at once), the largest
   * exposition text a worker may send (bytes; larger counts as missing), and scrapes collected at
   * once (more are answered from the last texts known).
   */
  metricsWorkerWaitMs: 1_000,
  metricsWorkerTextMaxBytes: 1_048_576,
  metricsScrapesPending: 8,
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

  // Faults of the upstream and the network (docs/operations.md "Faults"; not spec numbers)
  /**
   * Upstream answers (GraphQL read whole, REST uploads' piped) are cut past this many bytes:
   * 502 UpstreamAnswerTooLarge, or the piped answer ends early. GraphQL answers are held whole
   * while rewritten, so with graphqlMaxConcurrent calls in flight this bounds the memory they
   * can hold (32 x 8 MiB). Option upstreamAnswerMaxBytes, UPSTREAM_ANSWER_MAX_BYTES.
   */
  upstreamAnswerMaxBytes: 8 * 1024 * 1024,
  /**
   * Both hosts (node:http, on Node and on Deno): a connection that has not sent a complete
   * request head this long after it opened (or after its previous answer) is answered 408 and
   * closed, so connections that never send a byte do not hold file descriptors. Deno.serve (2.9),
   * the handler of `deno task serve:parallel`, has no such timeout: put the worker mode behind a
   * reverse proxy that has one (docs/operations.md "Faults").
   */
  httpHeadersTimeoutMs: 15_000,
  /** Both hosts: the whole request (head and body, e.g. a 25 MiB upload) must arrive within it. */
  httpRequestTimeoutMs: 300_000,
  /** Both hosts: an idle keep-alive connection is closed this long after its last answer. */
  httpKeepAliveTimeoutMs: 5_000,
  /** Both hosts: how often the two timeouts above are checked (a close is late by at most this). */
  httpTimeoutCheckMs: 2_000,

  // Session gate (option auth)
  authCacheTtlMs: 30_000,
  authRpcName: 'svc_my_bot_ids',
  gateMissesPerMinute: 600,
  /** Share of the miss budget held for already-admitted sessions. */
  gateMissesHeldShare: 0.2,
  /** Deadline of one svc_my_bot_ids call (past it: 503 ProxyAuthUnavailable). */
  gateLookupTimeoutMs: 5_000,
  /** Deadline of one svc_* call of the auth routes (provision, bots, recovery-link). */
  authRouteRpcTimeoutMs: 10_000,
  /** Provision waits this long past the upstream budget for another call's reservation. */
  provisionPendingGraceMs: 5_000,
  /** How often provision asks again while another call's reservation is pending. */
  provisionPendingPollMs: 100,
  /** Gate answers cached per token hash, and admitted token hashes remembered. */
  gateSessionsCached: 10_000,

  // Ceilings configurable by option or environment
  restMaxConcurrent: 8,
  graphqlMaxConcurrent: 32,
  graphqlMaxBatch: 25,
  /**
   * GraphQL cost limits per document (not spec numbers; checked right after step 11). Every
   * document under data/upstream/operations passes with room: their largest are depth 24,
   * 18 aliases, 1 root field, no directive, 1119 tokens.
   */
  graphqlMaxDepth: 40,
  graphqlMaxAliases: 100,
  graphqlMaxRootFields: 32,
  graphqlMaxDirectives: 32,
  graphqlMaxTokens: 5_000,
  /**
   * JSON nesting (not a spec number; docs/configuration.md "Ceilings", src/http/json_depth.ts):
   * JSON a client sends (GraphQL body, socket frame, JSON route body) nested deeper than this is
   * refused before it is parsed. The outer object or array is level 1.
   */
  jsonMaxDepth: 128,
  /**
   * The most jsonMaxDepth may be (a larger value is read as this), and the nesting past which an
   * upstream answer or frame is not parsed to be rebuilt (docs/readings.md "JSON nesting depth").
   * The runtimes' JSON.stringify recurses once a level: from an empty stack Node 20 threw
   * RangeError between 4,000 and 5,000 levels, so a quarter of that leaves the room a request's
   * own stack takes.
   */
  jsonDepthHardMax: 1_000,
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
  /**
   * The Deno.serve handler (`deno task serve:parallel`): connections answered with
   * `connection: close` (the oversize 413) are remembered by peer address and port this long, at
   * most closingConnectionsMax of them (the oldest forgotten first); a request that still arrives
   * on one is dropped, never routed. Deno.serve keeps a connection open whatever the answer says,
   * and gives a handler no socket to end.
   */
  closingConnectionMs: 60_000,
  closingConnectionsMax: 4096,
  /** Node server shutdown (SIGTERM): connections still open this long after are cut. */
  shutdownGraceMs: 10_000,

  // WebSocket relay ceilings
  browserFrameBytes: 1024 * 1024,
  upstreamFrameBytes: 16 * 1024 * 1024,
  heldFramesBeforeUpstream: 64,
  heldBytesBeforeUpstream: 512 * 1024,
  heldFramesBehindLookup: 64,
  subscriptionsPerSocket: 128,
  socketLifeMs: 60 * 60_000,
  /**
   * Keepalive on both relay legs (not spec numbers; docs/operations.md "Slow and vanished peers on
   * the relay"): a leg silent this long is pinged (WS_PING_INTERVAL_MS) ...
   */
  wsPingIntervalMs: 30_000,
  /** ... and dropped when nothing (a pong or any frame) comes back this long after the ping. */
  wsPongTimeoutMs: 10_000,
  /** Wait for the upstream's connection_ack after it opened (not a spec number); then 1012. */
  upstreamAckTimeoutMs: 10_000,
  /**
   * Deno's server socket drops the connection (1006, no close frame) when a frame arrives after
   * it sent its close: a close asked for while the browser is still sending waits until the
   * browser was quiet this long (not a spec number) ...
   */
  socketCloseQuietMs: 50,
  /** ... and at most this long (the oversize rule's 250 ms), then closes anyway. */
  socketCloseLingerMs: 250,

  // WebSocket relay flow control (docs/operations.md "Slow and vanished peers on the relay"; not
  // spec numbers)
  /** A leg whose unsent bytes pass this stops reading the other leg (TCP pushes back) ... */
  wsHighWaterBytes: 512 * 1024,
  /** ... and resumes once they are back at or below this. */
  wsLowWaterBytes: 128 * 1024,
  /** A leg whose unsent bytes stay above the high-water mark this long is closed 1013. */
  wsStallTimeoutMs: 30_000,
  /**
   * A leg whose unsent bytes pass this is closed 1013 at once. Never below the high-water mark
   * plus one upstream frame at its ceiling plus `wsFrameSlackBytes` (the relay raises it).
   */
  wsBufferCapBytes: 24 * 1024 * 1024,
  /** Room above one upstream frame for its re-serialised size (the cap's floor). */
  wsFrameSlackBytes: 64 * 1024,
  /**
   * A paused leg's unsent bytes are read back this soon (ms), then twice as late each time, at
   * most every `wsFlowPollMs` (resume or stall).
   */
  wsFlowFirstPollMs: 1,
  wsFlowPollMs: 20,

  // Process memory budget (not spec numbers): docs/operations.md "Memory"
  /**
   * MEMORY_BUDGET_BYTES unset: this share of the container's memory limit (cgroup v2
   * memory.max, v1 memory.limit_in_bytes) where one is set ...
   */
  memoryBudgetCgroupShare: 0.5,
  /** ... else this many bytes. */
  memoryBudgetBytes: 512 * 1024 * 1024,
  /**
   * The first threshold ("pressure"), a share of the budget: past it new sockets and requests
   * are refused (503 ProxyBusy, 1013 ProxyBusy) and relayed sockets pause at the lower mark.
   */
  memoryPressureShare: 0.75,
  /** Under pressure a relayed socket's upstream leg pauses past this many unsent bytes. */
  memoryPressureHighWaterBytes: 64 * 1024,
  /** Resident memory (the second signal) is read this often (ms) while sockets are open ... */
  memoryRssSampleMs: 1_000,
  /**
   * ... and this often (ms) past the pressure threshold, where a second's growth (frames parsed
   * and their garbage) can be a large share of what is left of the budget.
   */
  memoryRssPressedSampleMs: 250,
  /**
   * Past the pressure threshold by resident memory, a full garbage collection runs before the
   * reading is judged, at most this often (ms): what is left is what the process holds. Shedding
   * collects at once whatever the time since the last one (what the shed held is garbage then).
   */
  memoryCollectEveryMs: 500,
  /** A socket whose upstream leg has been paused this long (ms) has a browser that is not reading. */
  memoryStalledMs: 1_000,
  /*
   * What an HTTP request holds, in bytes per byte of its body, counted from the body's first byte
   * until the request is answered (docs/operations.md "Memory"). Each factor is the worst shape's
   * resident growth (the heap's garbage and the pages it grew by included: what the budget bounds),
   * rounded up, as scripts/bench/representation_cost.mjs measures it on both runtimes; the figures
   * per shape: docs/benchmarks.md "What a request's forms hold".
   */
  /**
   * The body's bytes as read, a request's and a GraphQL upstream answer's (from its first byte):
   * the chunks and their joined copy (2 bytes a byte; the upload and media routes stream or copy
   * on their own, see below).
   */
  memoryBodyBytesPerByte: 2,
  /**
   * A JSON body's raw forms beside its bytes, reserved with them: the decoded text (2: a two-byte
   * string where any character is past U+00FF) and the forwarded form rebuilt from the parsed
   * value (2, the text again).
   */
  memoryJsonPerByte: 4,
  /**
   * Its parsed value: reserved with them at this a byte, then, once the text is read, brought
   * down to src/http/body.ts parsedJsonCost: at most this a character (the worst shape, a wide
   * array of empty objects) ...
   */
  memoryParsedPerByte: 30,
  /**
   * ... and at most this a structural mark (`{ [ , :`) beyond 2 bytes a character (the worst
   * shape: objects with distinct keys).
   */
  memoryParsedPerMark: 84,
  /**
   * A GraphQL document's parsed tree, per character of the query text (the worst shape: fragment
   * spreads), counted before it is parsed, on top of the body ...
   */
  memoryDocumentPerChar: 58,
  /**
   * ... and at most this per token, since the parser stops at the first token past
   * graphqlMaxTokens (the worst shape per token: a plain field, one token of 11 characters).
   */
  memoryDocumentPerToken: 340,
  /**
   * A request reserving this many bytes or more (a JSON body of about 230 KB) is admitted only
   * while the count with it stays under the pressure threshold, and a collection runs when it
   * ends (at most every memoryCollectEveryMs): its garbage is collected before the next large one
   * adds to it.
   */
  memoryLargeRequestBytes: 8 * 1024 * 1024,
  /** A GraphQL upstream answer: the text and its rewritten copy, per character. */
  memoryAnswerPerChar: 2,
  /**
   * A media upload (multipart) per byte beside its bytes: the parsed form's file and the file's
   * own copy of its bytes.
   */
  memoryMediaPerByte: 2,

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
  /** Password throttle (option adminThrottle): failed attempts per client before any wait. */
  adminThrottleFreeAttempts: 5,
  /** First wait once the free attempts are spent; doubles per further failure, up to the cap. */
  adminThrottleBaseWaitMs: 30_000,
  adminThrottleCapMs: 15 * 60_000,
  /** Fixed pause of every POST /session attempt (right or wrong). */
  adminAttemptPauseMs: 500,
  /** Client keys the per-process throttle remembers (oldest dropped). */
  adminThrottleKeys: 10_000,
  /** Deadline of one backend call of the panel (throttle row, tenants, grants, bot records). */
  adminDatabaseTimeoutMs: 5_000,
  /** Deadline of the panel's token check (facts.json SvcAdminPing timeoutMs). */
  adminPingTimeoutMs: 10_000,
  mediaBucket: 'svc-pub-media',
  mediaQuotaMb: 512,
  mediaTtlDays: 30,
  /** Deadline of one publishing database call (posts, scheduler, media accounting). */
  publishingDatabaseTimeoutMs: 5_000,
  /**
   * Longest PUBLISHING_SECRET POST /register records, in characters (visible ASCII: the scheduler
   * sends it as an HTTP header; the migration's svc_publishing_register checks the same).
   */
  publishingSecretMaxChars: 1024,
  /** Deadline of one Storage API call (media upload or delete). */
  storageTimeoutMs: 60_000,
  /** Deadline of register's look at the media bucket (past it: state 'unreachable'). */
  storageCheckTimeoutMs: 5_000,
  /**
   * The five publishable media types (facts.json publishingMediaTypes): the declared multipart
   * type must be one of them and the sniffed bytes must agree (mp4 and mov interchangeable).
   */
  mediaTypes: [
    { contentType: 'image/jpeg', extension: 'jpg' },
    { contentType: 'image/png', extension: 'png' },
    { contentType: 'image/webp', extension: 'webp' },
    { contentType: 'video/mp4', extension: 'mp4' },
    { contentType: 'video/quicktime', extension: 'mov' },
  ],
  /** Stored media objects are cached this long, in seconds (facts.json publishingMediaTypes.storage: a year, immutable). */
  mediaCacheSeconds: 31_536_000,

  // Shared limits (docs/operations.md "Limits across processes"): tenant budgets, socket counts and
  // revocations across processes
  /** A lease of the shared bucket is this share of the tenant's minute (20 of 600, 2 of 60). */
  sharedLeaseShare: 1 / 30,
  /** The next lease is asked for when the local one is down to this share of a lease. */
  sharedLeaseRefillShare: 0.5,
  /** Deadline of one shared-limits RPC; past it the process falls back to per-process limits. */
  sharedDeadlineMs: 1_000,
  /** Each process's sync (socket counts renewed, revocation feed read): one RPC this often. */
  sharedSyncMs: 1_000,
  /** A process's socket counts lapse this long after its last renewal (a dead process's too). */
  sharedSocketLeaseMs: 5_000,
  /** Requests admitted on per-process limits awaiting reconciliation, tenants remembered. */
  sharedSpentTracked: 10_000,
  /** A backend that keeps flapping: at most one fallback log line this often. */
  sharedLogEveryMs: 60_000,
  /**
   * Refused Host and Origin values in the log (docs/operations.md "Logs"): each value at most once
   * a window (ms), at most this many lines a window, a value cut at this many characters.
   */
  refusedValueLogWindowMs: 60_000,
  refusedValueLogLines: 20,
  refusedValueLogChars: 200,
  /**
   * A bot's name: at most this many characters once trimmed (past it 422 BadBotName: SPEC "Database
   * hint mapping", name_too_long). svc_auth_check_name
   * (supabase/migrations/20261123231000_svc_auth.sql) holds the same number for the sign-up routes;
   * tests/admin/upstream_routes_test.ts holds the two together.
   */
  botNameMaxChars: 100,
  /** `svc-gateway --workers` / WORKERS: at most this many worker processes. */
  workersMax: 64,
  /** Worker processes replaced in one minute before the deployment stops (exit 1). */
  workerRestartsPerMinute: 10,
} as const;

/** The option names whose value is a ceiling: a value that is not a positive number gives the default. */
export const CEILING_OPTIONS = [
  ['restMaxConcurrent', 'REST_MAX_CONCURRENT'],
  ['graphqlMaxConcurrent', 'GRAPHQL_MAX_CONCURRENT'],
  ['graphqlMaxBatch', 'GRAPHQL_MAX_BATCH'],
  ['graphqlMaxDepth', 'GRAPHQL_MAX_DEPTH'],
  ['graphqlMaxAliases', 'GRAPHQL_MAX_ALIASES'],
  ['graphqlMaxRootFields', 'GRAPHQL_MAX_ROOT_FIELDS'],
  ['graphqlMaxDirectives', 'GRAPHQL_MAX_DIRECTIVES'],
  ['graphqlMaxTokens', 'GRAPHQL_MAX_TOKENS'],
  ['jsonMaxDepth', 'JSON_MAX_DEPTH'],
  ['wsMaxSockets', 'WS_MAX_SOCKETS'],
  ['wsPreAuthSockets', 'WS_PRE_AUTH_SOCKETS'],
  ['wsPingIntervalMs', 'WS_PING_INTERVAL_MS'],
  ['wsPongTimeoutMs', 'WS_PONG_TIMEOUT_MS'],
  ['wsHighWaterBytes', 'WS_HIGH_WATER_BYTES'],
  ['wsLowWaterBytes', 'WS_LOW_WATER_BYTES'],
  ['wsStallTimeoutMs', 'WS_STALL_TIMEOUT_MS'],
  ['wsBufferCapBytes', 'WS_BUFFER_CAP_BYTES'],
  ['wsFlowPollMs', 'WS_FLOW_POLL_MS'],
  ['tenantRequestsPerMinute', 'TENANT_REQUESTS_PER_MINUTE'],
  ['tenantMaxSockets', 'TENANT_MAX_SOCKETS'],
  ['upstreamAnswerMaxBytes', 'UPSTREAM_ANSWER_MAX_BYTES'],
  ['timeoutMs', null],
  ['slowTimeoutMs', null],
  ['wsInitTimeoutMs', null],
  ['mediaQuotaMb', 'PUBLISHING_MEDIA_QUOTA_MB'],
  ['mediaTtlDays', 'PUBLISHING_MEDIA_TTL_DAYS'],
] as const;

/** A ceiling option's name. */
export type CeilingOption = (typeof CEILING_OPTIONS)[number][0];
