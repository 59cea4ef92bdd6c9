/**
 * The tenant table of a proxy (docs/operations.md "Limits across processes"): shared through the
 * backend when `config.sharedLimits` (backend URL + service-role key, SVC_SHARED_LIMITS not off),
 * else per process as before (src/admission/tenants.ts). SPEC "Ceilings" (tenant rows), step 4 of
 * "Order in which a GraphQL body is checked", "WebSocket close codes" (4429; 4401 for a revoked
 * bot).
 *
 * Shared: requests spend leases of one bucket per tenant (budget.ts), live sockets count across
 * processes (sockets.ts), and one sync a second renews the counts and reads the revocation feed
 * (sync.ts). Without an answer from the backend: per-process limits, one log line and one
 * metric (link.ts), until it answers again.
 */
import { createBackendRpc } from '../backend/rpc.ts';
import { createLimitsBackend, type Revocation } from '../backend/limits_rpc.ts';
import { DEFAULTS } from '../config/defaults.ts';
import type { ResolvedConfig } from '../config/resolved.ts';
import type { Gate } from '../admission/gate.ts';
import type { Revocations } from '../admission/revocations.ts';
import {
  createTenants,
  tenantBurst,
  tenantLimits,
  type Tenants,
  tenantSockets,
} from '../admission/tenants.ts';
import { createSharedBudget } from './budget.ts';
import { createLink } from './link.ts';
import { createSharedSockets } from './sockets.ts';
import { startSync } from './sync.ts';

/** What the shared table needs from the core being built. */
export interface TenantTableDeps {
  /** The host's outbound fetch. */
  fetch: typeof fetch;
  log: (line: string) => void;
  gate: Gate;
  revocations: Revocations;
  /** Told each backend function called (metrics), and each fall back. */
  onCall?: (fn: string) => void;
  onFallback?: () => void;
}

/** The table, and whether it is in per-process fallback now (metrics). */
export interface TenantTable extends Tenants {
  /** True while a shared table decides on per-process limits (the backend does not answer). */
  readonly fallback: boolean;
  close(): Promise<void>;
}

/** Applies revocations of the feed: the gate forgets the accounts, their sockets close 4401. */
export function applyRevocations(gate: Gate, revocations: Revocations, rows: Revocation[]) {
  for (const row of rows) {
    if (row.userId !== null) {
      gate.forget?.(row.userId);
      revocations.revoke(row.userId, row.botId);
    } else {
      for (const subject of revocations.revokeBot(row.botId)) gate.forget?.(subject);
    }
  }
}

/** Builds the table for `config`; a shared one starts its sync at once. */
export function createTenantTable(config: ResolvedConfig, deps: TenantTableDeps): TenantTable {
  const limits = tenantLimits(config);
  const local = createTenants(limits);
  const { url, serviceRoleKey } = config.auth;
  if (!config.sharedLimits || url === undefined || serviceRoleKey === undefined) {
    return Object.assign(local, { fallback: false, close: () => Promise.resolve() });
  }
  const rpc = createBackendRpc(url, serviceRoleKey, deps.fetch);
  const backend = createLimitsBackend(rpc, DEFAULTS.sharedDeadlineMs, deps.onCall);
  const link = createLink({
    log: deps.log,
    onFallback: deps.onFallback,
    // the budget is built below; the link calls this only once the sync has run
    onShared: () => budget.reconcile(),
    logEveryMs: DEFAULTS.sharedLogEveryMs,
  });
  const process = crypto.randomUUID();
  const budget = createSharedBudget({
    backend,
    link,
    local,
    burst: (key) => tenantBurst(limits, key),
    tracked: limits.tracked,
  });
  const sockets = createSharedSockets({
    backend,
    link,
    process,
    max: (key) => tenantSockets(limits, key),
    leaseMs: DEFAULTS.sharedSocketLeaseMs,
    // the sync is built below; opens come only once the table is returned
    syncing: () => sync.inFlight(),
  });
  const sync = startSync({
    backend,
    link,
    process,
    counts: sockets.counts,
    apply: (rows) => applyRevocations(deps.gate, deps.revocations, rows),
    log: deps.log,
    intervalMs: DEFAULTS.sharedSyncMs,
    leaseMs: DEFAULTS.sharedSocketLeaseMs,
  });
  return {
    takeRequest: (key) => budget.take(key),
    openSocket: (key) => sockets.open(key),
    get size() {
      return budget.size;
    },
    get fallback() {
      return !link.shared;
    },
    close: () => sync.close(),
  };
}
