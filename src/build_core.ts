/**
 * The pieces one proxy instance shares (`Core`, src/core.ts), built once from the resolved
 * configuration and the host's options: fetch and the forward's transport, log, traces, metrics,
 * the memory accountant, the gate, in-flight counters, fences, tenant limits, registry, allowlist.
 */
import { createBotFence } from './admission/bot_fence.ts';
import { createGate, createStore } from './admission/session_module.ts';
import { createInFlight } from './admission/in_flight.ts';
import { createResourceFence } from './admission/resource_fence.ts';
import { createRevocations } from './admission/revocations.ts';
import { createTenantTable } from './shared_limits/mod.ts';
import type { SvcProxyOptions } from './proxy_options.ts';
import type { ResolvedConfig } from './config/resolved.ts';
import type { Core } from './core.ts';
import { buildRegistry, resolveAllowlist } from './graphql/mod.ts';
import { fetchPostText } from './upstream/outbound.ts';
import { createMetrics } from './observability/metrics.ts';
import { createLogger } from './observability/log.ts';
import { createTracing } from './observability/tracing.ts';
import { openWsUpstream } from './ws/mod.ts';
import { MemoryAccountant } from './memory/accountant.ts';
import { garbageCollector, residentReader } from './memory/resident.ts';

/** The core of one proxy: `config` resolved, `options` for what the host supplies. */
export function buildCore(config: ResolvedConfig, options: SvcProxyOptions): Core {
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
