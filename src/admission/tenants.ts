/**
 * Tenants: SPEC "Ceilings" (requests per minute and live sockets per tenant, tenants tracked)
 * and step 4 of "Order in which a GraphQL body is checked".
 *
 * A tenant is named by its fence, the set of bots it may reach (a stable hash of the sorted
 * ids), never by its session: four tabs or a fresh sign-in are one tenant. Signed-in accounts
 * with no bot share one bucket at a tenth of a tenant's rate and sockets. A caller without a
 * fence (allowedBotIds 'any') is not keyed and not limited; with the gate off and a fence the
 * deployment is one tenant.
 *
 * Each tenant holds a token bucket of a minute's burst (tenantRequestsPerMinute, refilled
 * continuously) and a count of live sockets (tenantMaxSockets). At most 10,000 tenants are
 * tracked; one idle five minutes (no request, no socket) is dropped, and past the ceiling the
 * least recently seen tenant without a socket is dropped.
 */
import { createHash } from 'node:crypto';
import { DEFAULTS } from '../config/defaults.ts';
import type { ResolvedConfig } from '../config/resolved.ts';
import { type Refusal, refusal } from '../http/error_codes.ts';

/** The key of the shared bucket of signed-in accounts with no bot. */
export const NO_BOT_TENANT = 'no-bot';

/** Key of the tenant that may reach `botIds`: a stable hash of the sorted ids (empty: no-bot). */
export function tenantKeyOf(botIds: ReadonlySet<string>): string {
  if (botIds.size === 0) return NO_BOT_TENANT;
  const sorted = [...botIds].sort().join('\n');
  return `bots:${createHash('sha256').update(sorted).digest('hex').slice(0, 32)}`;
}

/**
 * The tenant of every caller with the gate off: the deployment (keyed by its frozen fence, or
 * one key for the request-time fence), or null without a fence (allowedBotIds 'any').
 */
export function deploymentTenantKey(config: ResolvedConfig): string | null {
  if (config.allowedBotIds === 'any') return null;
  if (config.allowedBotIds === null) return 'deployment';
  return tenantKeyOf(new Set(config.allowedBotIds));
}

/** 429 TenantBusy with retry-after: 5 (SPEC "Size and capacity"). */
export function tenantBusy(): Refusal {
  return refusal(
    'TenantBusy',
    'This account spent its requests for this minute; try again shortly',
    { 'retry-after': String(DEFAULTS.busyRetryAfterSeconds) },
  );
}

/**
 * The tenant table the core consults: per process ({@link createTenants}), or shared by every
 * process on one backend (src/shared_limits/: answers may then be promises, when a lease or a
 * socket slot has to be asked of the backend).
 */
export interface Tenants {
  /** Step 4: takes one request from `key`'s bucket; false when the minute is spent. */
  takeRequest(key: string): boolean | Promise<boolean>;
  /** Takes a live-socket slot of `key`: a release function (idempotent), or null at the ceiling. */
  openSocket(key: string): (() => void) | null | Promise<(() => void) | null>;
  /** Tenants tracked now. */
  readonly size: number;
  /** Stops timers and gives back what the table holds in the backend (shared tables). */
  close?(): Promise<void>;
}

/** The per-process table: every answer is synchronous. */
export interface LocalTenants extends Tenants {
  takeRequest(key: string): boolean;
  openSocket(key: string): (() => void) | null;
}

/** Limits of the table (defaults from the configuration and DEFAULTS; tests may shrink them). */
export interface TenantLimits {
  requestsPerMinute: number;
  maxSockets: number;
  tracked: number;
  idleMs: number;
  noBotShare: number;
}

interface Entry {
  tokens: number;
  refilledAt: number;
  lastSeen: number;
  sockets: number;
}

/** The limits this configuration gives. */
export function tenantLimits(config: ResolvedConfig): TenantLimits {
  return {
    requestsPerMinute: config.tenantRequestsPerMinute,
    maxSockets: config.tenantMaxSockets,
    tracked: DEFAULTS.tenantsTracked,
    idleMs: DEFAULTS.tenantIdleMs,
    noBotShare: DEFAULTS.noBotBucketShare,
  };
}

/** Requests a minute (the bucket's size) of `key`: a tenth for the no-bot bucket, at least 1. */
export function tenantBurst(limits: TenantLimits, key: string): number {
  const share = key === NO_BOT_TENANT ? limits.noBotShare : 1;
  return Math.max(1, Math.round(limits.requestsPerMinute * share));
}

/** Live sockets of `key`: a tenth for the no-bot bucket, at least 1. */
export function tenantSockets(limits: TenantLimits, key: string): number {
  const share = key === NO_BOT_TENANT ? limits.noBotShare : 1;
  return Math.max(1, Math.round(limits.maxSockets * share));
}

/** Builds the tenant table. `now` is ms since the epoch. */
export function createTenants(
  limits: TenantLimits,
  now: () => number = Date.now,
): LocalTenants {
  /** Insertion order is recency order: an entry is re-inserted whenever it is seen. */
  const entries = new Map<string, Entry>();
  const burst = (key: string) => tenantBurst(limits, key);
  const sockets = (key: string) => tenantSockets(limits, key);
  let sweptAt = 0;

  const idle = (e: Entry, t: number) => e.sockets === 0 && t - e.lastSeen >= limits.idleMs;

  /** Drops idle entries from the least recently seen end (at most once a second). */
  const sweep = (t: number) => {
    if (t - sweptAt < 1_000 && entries.size < limits.tracked) return;
    sweptAt = t;
    for (const [key, e] of entries) {
      if (t - e.lastSeen < limits.idleMs) break;
      if (idle(e, t)) entries.delete(key);
    }
    if (entries.size < limits.tracked) return;
    for (const [key, e] of entries) {
      if (e.sockets === 0) {
        entries.delete(key);
        if (entries.size < limits.tracked) return;
      }
    }
  };

  const touch = (key: string): Entry => {
    const t = now();
    let e = entries.get(key);
    if (e) entries.delete(key);
    else {
      sweep(t);
      e = { tokens: burst(key), refilledAt: t, lastSeen: t, sockets: 0 };
    }
    e.lastSeen = t;
    entries.set(key, e);
    return e;
  };

  return {
    takeRequest(key) {
      const e = touch(key);
      const size = burst(key);
      const elapsed = Math.max(0, e.lastSeen - e.refilledAt);
      e.tokens = Math.min(size, e.tokens + (elapsed * size) / 60_000);
      e.refilledAt = e.lastSeen;
      if (e.tokens < 1) return false;
      e.tokens -= 1;
      return true;
    },
    openSocket(key) {
      const e = touch(key);
      if (e.sockets >= sockets(key)) return null;
      e.sockets++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        e.sockets--;
        e.lastSeen = now();
      };
    },
    get size() {
      return entries.size;
    },
  };
}
