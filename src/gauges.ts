/**
 * The process's metrics exposition (docs/operations.md "Metrics"): the registry's counters with
 * the gauges read at scrape time (in-flight counts, the relay, fences, tenants, memory) and the
 * process lines; a worker deployment's host merges every worker's (docs/operations.md "Metrics
 * of a worker deployment").
 */
import type { Core } from './core.ts';
import type { MemoryAccountant } from './memory/accountant.ts';
import type { Relay } from './ws/mod.ts';
import type { TenantTable } from './shared_limits/mod.ts';
import { eventLoopLagMs, processLines } from './observability/process_metrics.ts';

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

/** Every gauge of `core` and its `relay`, read now. */
function gauges(core: Core, relay: Relay) {
  const { config } = core;
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
    // built by createTenantTable (src/build_core.ts), which says whether it is in fallback
    sharedLimitsFallback: (core.tenants as TenantTable).fallback ? 1 : 0,
    relayMaxSockets: config.wsMaxSockets,
    ...(core.memory ? memoryGauges(core.memory) : {}),
  };
}

/** This process's exposition text, or null when metrics are off (event-loop lag measured). */
export async function ownExposition(core: Core, relay: Relay): Promise<string | null> {
  if (!core.metrics) return null;
  const lag = await eventLoopLagMs();
  return core.metrics.render(gauges(core, relay)) + processLines(lag).join('\n') + '\n';
}

/**
 * What the metrics route answers with: this process's exposition, merged by `deployment` (a
 * worker deployment's host: every worker's) when given. Only called with metrics on.
 */
export function exposition(
  core: Core,
  relay: Relay,
  deployment?: (own: string) => Promise<string>,
): () => Promise<string> {
  return async () => {
    const own = (await ownExposition(core, relay))!;
    return deployment ? await deployment(own) : own;
  };
}
