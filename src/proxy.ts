/**
 * createSvcProxy: the one core every host serves, wired from its pieces: the core's shared parts
 * (src/build_core.ts), the route table (src/routes/dispatch.ts), the door every request enters by
 * (src/door.ts: the request's state, the checks before any route, metrics and access lines), the
 * upgrade decision (src/routes/upgrade.ts), the read-ahead room (src/http/read_ahead.ts) and the
 * metrics exposition (src/gauges.ts). SPEC "Checks before any route", "Route table",
 * "Startup behaviour and hosts".
 */
import { admitSocket } from './admission/socket_admission.ts';
import type { Env, SvcProxyOptions } from './proxy_options.ts';
import { resolveConfig } from './config/resolve.ts';
import type { ResolvedConfig } from './config/resolved.ts';
import { startupLines } from './config/startup.ts';
import { DEFAULTS } from './config/defaults.ts';
import { buildCore } from './build_core.ts';
import { createDoor } from './door.ts';
import { answerOf, isPlainAnswer, type Routed, type SvcAnswer, toResponse } from './http/answer.ts';
import type { ConnInfo, SvcRequest } from './http/request.ts';
import { healthResponse } from './http/responses.ts';
import { readAheadRoom } from './http/read_ahead.ts';
import { exposition, ownExposition } from './gauges.ts';
import { RefusedValueLog } from './observability/refused_values.ts';
import { createRouter } from './routes/dispatch.ts';
import { createCoreRelay } from './routes/socket.ts';
import { decideUpgrade, type UpgradeDecision } from './routes/upgrade.ts';
import type { RelaySocket, RelayStats } from './ws/mod.ts';

export type { ConnInfo } from './http/request.ts';
export type { UpgradeDecision } from './routes/upgrade.ts';

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
  /**
   * The one entry every host serves HTTP by: the proxy's answer (status, header record, body as
   * text, a stream or none: {@link SvcAnswer}), or null when the path is not claimed (the host
   * answers its own 404). `request` is a Web Request, or on the GraphQL route the lighter
   * {@link SvcRequest} a host builds over its own request, so a host writing to a socket itself
   * needs no Web Request or Response there (docs/benchmarks.md "The gateway's own cost": the Node
   * host's common path); every other route reads a Web Request's API and answers a light request
   * 500 ProxyHandlerFailed. `conn`: the peer's address, and the body when the host read it ahead
   * (`conn.readAhead`, src/http/preread.ts; the request then carries none).
   */
  serve(request: SvcRequest, conn?: ConnInfo): Promise<SvcAnswer | null>;
  /**
   * {@link SvcProxy.serve} for the Web-standard caller: the same door, checks and routes, the
   * answer as a Web Response (null: not claimed).
   */
  handle(request: Request, conn?: ConnInfo): Promise<Response | null>;
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

/**
 * Builds the proxy. `options` over `env` over defaults (SPEC "Options").
 * Throws only for a registry that cannot be built (two operations in one
 * document, two operations sharing a key): startup fails.
 */
export function createSvcProxy(options: SvcProxyOptions = {}, env: Env = {}): SvcProxy {
  const config = resolveConfig(options, env);
  const core = buildCore(config, options);
  const lines = startupLines(config, {
    allowlistSize: core.allowlist ? core.allowlist.size : null,
    registrySize: core.registry ? core.registry.size : null,
  });
  const refusedValues = new RefusedValueLog(core.log, {
    windowMs: DEFAULTS.refusedValueLogWindowMs,
    linesPerWindow: DEFAULTS.refusedValueLogLines,
    valueChars: DEFAULTS.refusedValueLogChars,
  });
  const healthy = config.problems.length === 0;
  const relay = createCoreRelay(core, (payload) => admitSocket(core, payload));
  const router = createRouter(core, exposition(core, relay, options.metricsDeployment));
  const door = createDoor(core, { config, log: core.log, refusedValues });
  /** Health, or null when unclaimed, or the route's answer through the door. */
  const enter = (request: SvcRequest, conn?: ConnInfo): Routed | null | Promise<Routed> => {
    const path = new URL(request.url).pathname;
    if (path === config.healthPath) return healthResponse(request.method, healthy);
    if (!router.claims(path)) return null;
    return door(
      request,
      path,
      conn,
      (state, cors) => router.route(request, state, path, cors, conn),
    );
  };

  return {
    config,
    startupLines: lines,
    health: (request) => healthResponse(request.method, healthy),
    async serve(request, conn) {
      const result = await enter(request, conn);
      return result === null ? null : answerOf(result);
    },
    async handle(request, conn) {
      const result = await enter(request, conn);
      return result === null || !isPlainAnswer(result) ? result : toResponse(result);
    },
    upgrade: (request) => decideUpgrade(config, relay, refusedValues, request),
    readAhead: (declared) => readAheadRoom(core.memory, declared),
    acceptSocket: (socket) => relay.accept(socket),
    metricsText: () => ownExposition(core, relay),
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
