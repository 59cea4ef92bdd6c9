/**
 * createSvcProxy: the one core every host serves. SPEC "Checks before any
 * route", "Route table", "Startup behaviour and hosts".
 */
import { createBotFence } from './admission/bot_fence.ts';
import { createGate, createStore } from './admission/session_module.ts';
import { admitSocket } from './admission/socket_admission.ts';
import { createInFlight } from './admission/in_flight.ts';
import { createResourceFence } from './admission/resource_fence.ts';
import { createRevocations } from './admission/revocations.ts';
import { createTenantTable, type TenantTable } from './shared_limits/mod.ts';
import type { Env, SvcProxyOptions } from './config/options.ts';
import { resolveConfig } from './config/resolve.ts';
import type { ResolvedConfig } from './config/resolved.ts';
import { startupLines } from './config/startup.ts';
import type { Core } from './core.ts';
import { buildRegistry, resolveAllowlist } from './graphql/mod.ts';
import { refusal } from './http/error_codes.ts';
import {
  checkHost,
  checkOrigin,
  corsHeaders,
  PREFLIGHT_HEADERS,
  withCors,
} from './http/host_origin.ts';
import { negotiatedRefusal, negotiatedResult } from './http/media_type.ts';
import { healthResponse, isRefusalAnswer, plainResponse, refusalAnswer } from './http/responses.ts';
import { withSecurityRecord } from './http/security_headers.ts';
import { isPlainAnswer, type PlainAnswer, toResponse } from './http/answer.ts';
import type { SvcRequest } from './http/request.ts';
import { handleGraphql } from './routes/graphql.ts';
import { handleRest } from './routes/rest.ts';
import { createAdminRoutes } from './routes/admin/mod.ts';
import { createAuthRoutes } from './routes/auth/mod.ts';
import { createPublishingRoutes } from './routes/publishing/mod.ts';
import { createCoreRelay } from './routes/socket.ts';
import { fetchPostText } from './upstream/outbound.ts';
import { createMetrics } from './observability/metrics.ts';
import { createLogger, envelopeCode } from './observability/log.ts';
import { createTracing } from './observability/tracing.ts';
import { knownText } from './http/preread.ts';
import { JSON_BODY_PER_BYTE } from './http/body.ts';
import { metricsResponse } from './observability/metrics_route.ts';
import { eventLoopLagMs, processLines } from './observability/process_metrics.ts';
import { routeOf } from './observability/route_names.ts';
import { noteRefusedCaller, RefusedValueLog } from './observability/refused_values.ts';
import { DEFAULTS } from './config/defaults.ts';
import {
  offersRelaySubprotocol,
  openWsUpstream,
  RELAY_SUBPROTOCOL,
  type RelaySocket,
  type RelayStats,
} from './ws/mod.ts';
import { MemoryAccountant } from './memory/accountant.ts';
import { garbageCollector, residentReader } from './memory/resident.ts';
import { releaseRequest, trackRequest } from './memory/requests.ts';
import { memoryBusy } from './http/busy.ts';

/** What a host knows about the connection. */
export interface ConnInfo {
  /** The peer's address (IP), when known. */
  remoteAddress?: string;
}

/** The core's answer to an upgrade request. */
export type UpgradeDecision =
  | { kind: 'unclaimed' }
  | { kind: 'refuse'; response: Response }
  | { kind: 'accept'; protocol: string };

/** One proxy instance: configuration, startup report, handlers. */
export interface SvcProxy {
  readonly config: ResolvedConfig;
  /** Problems, the configuration line, then REFUSING TO SERVE or WARNING (print them in order). */
  readonly startupLines: readonly string[];
  /**
   * The health route for `request` (hosts answer it before the proxy, and `handle` answers it
   * too): GET/HEAD 200 {ok:true} or 503 {ok:false}; other methods 405 (`healthResponse`).
   */
  health(request: Request): Response;
  /** The proxy's answer, or null when the path is not claimed (the host answers its own 404). */
  handle(request: Request, conn?: ConnInfo): Promise<Response | null>;
  /**
   * The GraphQL route (`config.httpPath`, whatever `request.url` says) for a request a host built
   * itself: the same checks, order and answers as `handle` gives that path, returned as a
   * PlainAnswer (status, header record, text) so a host writing to a socket itself needs no Web
   * Request or Response (docs/benchmarks.md "The gateway's own cost": the Node host's common path).
   * The body is read through `request.body` or bytes registered with `withPrereadBody`.
   */
  handleGraphql(request: SvcRequest, conn?: ConnInfo): Promise<PlainAnswer>;
  /**
   * Decides a WebSocket upgrade before any socket exists. Reads the URL and the Host, Origin and
   * Sec-WebSocket-Protocol headers only: a Web Request, or the lighter {@link SvcRequest} a host
   * builds over its own request (hosts/node_http/lean.ts).
   */
  upgrade(request: SvcRequest, conn?: ConnInfo): UpgradeDecision;
  /**
   * Room in the memory budget for a body of `declared` bytes a host reads whole before the core
   * sees the request (src/http/preread.ts; docs/operations.md "Memory": counted from the first
   * byte): a release function (idempotent; call it once the answer is sent, however the request
   * ended), or null when it does not fit (the host then leaves the body to the core's read, which
   * reserves or refuses it after the checks before any route).
   */
  readAhead(declared: number): (() => void) | null;
  /** Hands an upgraded browser socket to the relay (right after `upgrade` accepted, same tick). */
  acceptSocket(socket: RelaySocket): void;
  /**
   * This process's metrics exposition (gauges read now, event-loop lag measured), or null when
   * metrics are off: what a worker deployment's host sends the worker answering a scrape
   * (docs/operations.md "Metrics of a worker deployment").
   */
  metricsText(): Promise<string | null>;
  /** Internal counters (tests and benchmarks read them). */
  stats(): {
    graphqlInFlight: number;
    restInFlight: number;
    resourceBindings: number;
    relay: RelayStats;
    /** The memory accountant: bytes counted now, its level and what it did. */
    memory: { held: number; level: string; sockets: number; actions: Record<string, number> };
  };
  /** Stops timers and closes sockets. */
  close(): Promise<void>;
}

/** The memory accountant's gauges for the metrics (read at scrape time). */
function memoryGauges(memory: MemoryAccountant) {
  memory.sample();
  return {
    memoryBudgetBytes: memory.budget,
    memoryHeldBytes: memory.held,
    memoryResidentGrowthBytes: memory.residentGrowth,
    memoryLevel: memory.level === 'over' ? 2 : memory.level === 'pressure' ? 1 : 0,
  };
}

/** What a route answers with. */
type Routed = Response | PlainAnswer;

function under(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

function buildCore(config: ResolvedConfig, options: SvcProxyOptions): Core {
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const logger = createLogger(config.logFormat, options.log ?? ((line) => console.log(line)));
  const metrics = config.metrics.enabled ? createMetrics() : null;
  const resourceFence = createResourceFence(config.resourceFence);
  const gate = createGate(
    config,
    fetchImpl,
    metrics ? (result) => metrics.gate(result) : undefined,
  );
  const revocations = createRevocations();
  const tenants = createTenantTable(config, {
    fetch: fetchImpl,
    log: logger.line,
    gate,
    revocations,
    onCall: metrics ? (fn) => metrics.sharedLimitsCall(fn) : undefined,
    onFallback: metrics ? () => metrics.sharedLimitsFallback() : undefined,
  });
  return {
    config,
    fetch: fetchImpl,
    postText: options.postText ?? fetchPostText(fetchImpl),
    upstreamSocket: options.upstreamSocket ?? openWsUpstream,
    log: logger.line,
    logger,
    tracing: createTracing(config.otlpEndpoint),
    metrics,
    memory: config.memoryBudget.bytes === null
      ? null
      : new MemoryAccountant(config.memoryBudget.bytes, residentReader(), {
        collect: () => garbageCollector()?.(),
        onAction: metrics ? (action) => metrics.memoryAction(action) : undefined,
      }),
    gate,
    graphqlInFlight: createInFlight(config.graphqlMaxConcurrent),
    restInFlight: createInFlight(config.restMaxConcurrent),
    botFence: createBotFence(config, fetchImpl),
    resourceFence,
    resourceStore: createStore(config, resourceFence, fetchImpl),
    tenants,
    revocations,
    registry: config.operations ? buildRegistry(config.operations) : null,
    allowlist: config.operationAllowlist
      ? resolveAllowlist({ enabled: true, extra: config.operationAllowlistExtra })
      : null,
  };
}

/**
 * Builds the proxy. `options` over `env` over defaults (SPEC "Options").
 * Throws only for a registry that cannot be built (two operations in one
 * document, two operations sharing a key): startup fails.
 */
export function createSvcProxy(options: SvcProxyOptions = {}, env: Env = {}): SvcProxy {
  const config = resolveConfig(options, env);
  const core = buildCore(config, options);
  const tenants = core.tenants as TenantTable;
  const lines = startupLines(config, {
    allowlistSize: core.allowlist ? core.allowlist.size : null,
    registrySize: core.registry ? core.registry.size : null,
  });
  const admin = config.admin.state === 'off' ? null : createAdminRoutes(core);
  const auth = createAuthRoutes(core);
  const publishing = createPublishingRoutes(core);
  const refusedValues = new RefusedValueLog(core.log, {
    windowMs: DEFAULTS.refusedValueLogWindowMs,
    linesPerWindow: DEFAULTS.refusedValueLogLines,
    valueChars: DEFAULTS.refusedValueLogChars,
  });
  const claims = (path: string) =>
    path === config.httpPath || under(path, config.apiPath) ||
    (admin !== null && under(path, config.adminPath)) ||
    (auth !== null && under(path, config.authPath)) ||
    (publishing !== null && under(path, config.publishingPath)) ||
    (core.metrics !== null && path === config.metricsPath);
  const healthy = config.problems.length === 0;
  const relay = createCoreRelay(core, (payload) => admitSocket(core, payload));

  const gauges = () => {
    const relayStats = relay.stats();
    return {
      graphqlInFlight: core.graphqlInFlight.count,
      graphqlMaxConcurrent: config.graphqlMaxConcurrent,
      restInFlight: core.restInFlight.count,
      restMaxConcurrent: config.restMaxConcurrent,
      relaySockets: relayStats.sockets,
      relaySubscriptions: relayStats.subscriptions,
      relayPausedLegs: relayStats.pausedLegs,
      relayUpstreamSockets: relayStats.upstreamSockets,
      relayTimers: relayStats.timers,
      relayHeldFramesTotal: relay.totals().heldFrames,
      resourceBindings: core.resourceFence.size,
      tenantsTracked: core.tenants.size,
      sharedLimitsFallback: tenants.fallback ? 1 : 0,
      relayMaxSockets: config.wsMaxSockets,
      ...(core.memory ? memoryGauges(core.memory) : {}),
    };
  };
  const ownText = async (): Promise<string | null> => {
    if (!core.metrics) return null;
    const lag = await eventLoopLagMs();
    return core.metrics.render(gauges()) + processLines(lag).join('\n') + '\n';
  };
  const exposition = async () => {
    const own = (await ownText())!;
    return options.metricsDeployment ? await options.metricsDeployment(own) : own;
  };
  const route = (
    request: Request,
    path: string,
    cors: Record<string, string>,
    conn?: ConnInfo,
  ): Routed | Promise<Routed> => {
    if (path === config.httpPath) return handleGraphql(core, request, cors);
    if (core.metrics && path === config.metricsPath) {
      return metricsResponse(config, exposition, request, conn?.remoteAddress);
    }
    if (admin && under(path, config.adminPath)) {
      return admin(request, path.slice(config.adminPath.length), conn);
    }
    // past the memory budget, new requests are refused (docs/operations.md "Memory"); the GraphQL
    // route asks at its step 5, the panel and the metrics always answer
    if (core.memory?.refuseRequest()) {
      const refused = memoryBusy();
      return refusalAnswer({ ...refused, headers: { ...refused.headers, ...cors } });
    }
    if (auth && under(path, config.authPath)) {
      return auth(request, path.slice(config.authPath.length), cors);
    }
    if (publishing && under(path, config.publishingPath)) {
      return publishing(request, path.slice(config.publishingPath.length), cors);
    }
    return handleRest(core, request, path.slice(config.apiPath.length), cors);
  };

  /**
   * An answer of the GraphQL route in the media type its Accept asks for (src/http/media_type.ts,
   * docs/routes.md "Refusals and their media type"); any other answer as it is.
   */
  const negotiated = <T extends Routed>(request: SvcRequest, path: string, answer: T): T => {
    if (path !== config.httpPath || !isPlainAnswer(answer)) return answer;
    const accept = request.headers.get('accept');
    if (isRefusalAnswer(answer)) return negotiatedRefusal(answer, accept) as T;
    return negotiatedResult(answer, accept) as T;
  };

  /**
   * Host and origin checks, preflight, then `routed(cors)`; a handler that throws answers 500.
   * Every answer past the origin check carries the CORS headers of a listed caller (SPEC "Checks
   * before any route" 3), the route's own 405 and that 500 included.
   */
  const checked = async <T extends Routed>(
    request: SvcRequest,
    path: string,
    routed: (cors: Record<string, string>) => T | Promise<T>,
  ): Promise<T | PlainAnswer> => {
    const adminOnly = under(path, config.adminPath);
    const callerRefused = checkHost(config, request) ?? checkOrigin(config, request, adminOnly);
    if (callerRefused) {
      noteRefusedCaller(refusedValues, callerRefused.code, request, adminOnly);
      return negotiated(request, path, refusalAnswer(callerRefused));
    }
    const cors = corsHeaders(config, request);
    if (request.method === 'OPTIONS') {
      return {
        status: 204,
        headers: withSecurityRecord({ ...cors, ...PREFLIGHT_HEADERS }),
        body: null,
      };
    }
    let answer: T | PlainAnswer;
    try {
      answer = await routed(cors);
    } catch (error) {
      core.log(`svc-gateway: handler failed: ${(error as Error)?.name ?? 'error'}`);
      answer = refusalAnswer(
        refusal('ProxyHandlerFailed', 'The proxy failed to handle this request'),
      );
    }
    return withCors(negotiated(request, path, answer), cors);
  };

  /** A claimed path's answer with its metrics and access line. */
  const observed = async <T extends Routed>(path: string, answer: () => Promise<T>): Promise<T> => {
    const started = core.logger.accessLines ? performance.now() : 0;
    const result = await answer();
    core.metrics?.request(routeOf(config, path), result.status);
    if (core.logger.accessLines) {
      core.logger.access({
        route: routeOf(config, path),
        status: result.status,
        code: envelopeCode(isPlainAnswer(result) ? result.body ?? undefined : knownText(result)),
        durationMs: performance.now() - started,
        requestId: crypto.randomUUID(),
      });
    }
    return result;
  };

  return {
    config,
    startupLines: lines,
    health: (request) => healthResponse(request.method, healthy),
    async handle(request, conn) {
      const path = new URL(request.url).pathname;
      if (path === config.healthPath) return healthResponse(request.method, healthy);
      if (!claims(path)) return null;
      if (core.memory) trackRequest(request, core.memory);
      try {
        const result = await observed(
          path,
          () => checked(request, path, (cors) => route(request, path, cors, conn)),
        );
        return isPlainAnswer(result) ? toResponse(result) : result;
      } finally {
        if (core.memory) releaseRequest(request);
      }
    },
    async handleGraphql(request) {
      if (core.memory) trackRequest(request, core.memory);
      try {
        return await observed(
          config.httpPath,
          () => checked(request, config.httpPath, (cors) => handleGraphql(core, request, cors)),
        );
      } finally {
        if (core.memory) releaseRequest(request);
      }
    },
    upgrade(request) {
      const path = new URL(request.url).pathname;
      if (path !== config.wsPath) return { kind: 'unclaimed' };
      const callerRefused = checkHost(config, request) ?? checkOrigin(config, request);
      if (callerRefused) {
        noteRefusedCaller(refusedValues, callerRefused.code, request, false);
        return { kind: 'refuse', response: plainResponse(403, 'Forbidden') };
      }
      if (!offersRelaySubprotocol(request.headers.get('sec-websocket-protocol'))) {
        return { kind: 'refuse', response: plainResponse(403, 'Forbidden') };
      }
      const full = relay.admitUpgrade();
      if (full) {
        const response = plainResponse(503, 'Service Unavailable');
        if (full.retryAfterSeconds) {
          response.headers.set('retry-after', String(full.retryAfterSeconds));
        }
        return { kind: 'refuse', response };
      }
      return { kind: 'accept', protocol: RELAY_SUBPROTOCOL };
    },
    readAhead(declared) {
      const memory = core.memory;
      const bytes = Math.max(0, declared) * JSON_BODY_PER_BYTE;
      if (memory === null) return () => {};
      // not counted as a refused request: the core's own read refuses it, or finds room
      if (!memory.fits(bytes)) return null;
      memory.charge(bytes);
      let held = true;
      return () => {
        if (held) memory.release(bytes);
        held = false;
      };
    },
    acceptSocket: (socket) => relay.accept(socket),
    metricsText: ownText,
    stats: () => ({
      graphqlInFlight: core.graphqlInFlight.count,
      restInFlight: core.restInFlight.count,
      resourceBindings: core.resourceFence.size,
      relay: relay.stats(),
      memory: {
        held: core.memory?.held ?? 0,
        level: core.memory?.level ?? 'off',
        sockets: core.memory?.sockets ?? 0,
        actions: { ...core.memory?.actions },
      },
    }),
    close: async () => {
      await relay.closeAll();
      core.memory?.stop();
      await core.resourceStore?.close();
      await core.tenants.close?.();
      await core.tracing?.shutdown();
    },
  };
}
