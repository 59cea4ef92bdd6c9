/**
 * The shared request budget (docs/operations.md "Limits across processes"; SPEC "Ceilings":
 * requests per minute per tenant, step 4 of "Order in which a GraphQL body is checked"): one token
 * bucket per tenant in the backend (svc_tenant_take), taken by each process in leases, never one
 * call per request.
 *
 * - A lease is `leaseSize(key)` tokens (DEFAULTS.sharedLeaseShare of the tenant's minute: 20 of
 *   600, 2 of the no-bot bucket's 60). Requests spend the local lease synchronously; when it is
 *   down to DEFAULTS.sharedLeaseRefillShare of a lease the next one is asked for in the
 *   background, so in the common case no request waits on the database. Only a tenant's first
 *   request in this process (or a burst faster than a lease round trip) waits for an answer;
 *   requests waiting together share one call that asks for all of them.
 * - A lease answered short means the bucket is dry: the process refuses locally (429
 *   TenantBusy, retry-after 5) and asks again only once the bucket has refilled a lease
 *   (`leaseSize * 60 s / minute`: 2 s), so a throttled tenant costs no call per request.
 * - Bounds: overshoot at most (processes x lease size) over the bucket, the tokens processes
 *   hold; undershoot at most the same (tokens held by processes the tenant stopped calling),
 *   plus up to one refill interval's tokens while a dry process waits to ask again (they stay
 *   in the bucket). While the backend does not answer: per-process limits (`local`).
 * - Reconciliation: requests admitted on per-process limits during an outage are counted per
 *   tenant (at most DEFAULTS.sharedSpentTracked tenants) and debited from the shared bucket as
 *   soon as the backend answers again (`reconcile`: one call per tenant owing, asking for no
 *   tokens, one at a time), so other processes do not take from a bucket that should be empty;
 *   a debit whose call gets no answer is kept and sent with the tenant's next call.
 */
import { LRUCache } from 'lru-cache';
import { DEFAULTS } from '../config/defaults.ts';
import type { LimitsBackend } from '../backend/limits_rpc.ts';
import type { LocalTenants } from '../admission/tenants.ts';
import type { Link } from './link.ts';

/** One tenant's local lease. */
interface Lease {
  /** Tokens granted and not spent. */
  tokens: number;
  /** The call in flight for this tenant, if any. */
  asking: Promise<void> | null;
  /** Requests waiting for that call. */
  waiting: number;
  /** ms since the epoch: the bucket was dry; no call before then. */
  dryUntil: number;
}

/** What the budget needs. */
export interface BudgetDeps {
  backend: LimitsBackend;
  link: Link;
  /** The per-process table: decides while the backend does not answer. */
  local: LocalTenants;
  /** Requests a minute of `key` (the bucket's size). */
  burst: (key: string) => number;
  /** Tenants whose lease is kept (LRU). */
  tracked: number;
  now?: () => number;
}

/** The shared budget's step 4. */
export interface SharedBudget {
  /** True admitted, false 429; a promise only when the backend must be asked first. */
  take(key: string): boolean | Promise<boolean>;
  /**
   * Debits from the shared bucket every tenant's requests admitted on per-process limits
   * (called when the backend answers again after an outage). Never throws.
   */
  reconcile(): void;
  /** Tenants with a lease held now. */
  readonly size: number;
}

/** Tokens of one lease of a bucket of `burst` a minute. */
export function leaseSize(burst: number): number {
  return Math.max(1, Math.round(burst * DEFAULTS.sharedLeaseShare));
}

/** Builds the shared budget. */
export function createSharedBudget(deps: BudgetDeps): SharedBudget {
  const { backend, link, local } = deps;
  const now = deps.now ?? Date.now;
  const leases = new LRUCache<string, Lease>({ max: deps.tracked });
  /** tenant -> requests admitted on per-process limits, to debit from the shared bucket. */
  const spent = new LRUCache<string, number>({ max: DEFAULTS.sharedSpentTracked });

  const fallback = (key: string): boolean => {
    if (!local.takeRequest(key)) return false;
    spent.set(key, (spent.get(key) ?? 0) + 1);
    return true;
  };

  const ask = (key: string, lease: Lease): Promise<void> => {
    const burst = deps.burst(key);
    const size = leaseSize(burst);
    const want = Math.min(burst, size + lease.waiting);
    const debit = spent.get(key) ?? 0;
    spent.delete(key);
    const asking = backend.take(key, want, burst, debit).then((granted) => {
      if (granted === null) {
        if (debit > 0) spent.set(key, (spent.get(key) ?? 0) + debit);
        return link.failed();
      }
      link.answered();
      lease.tokens += granted;
      if (granted < want) lease.dryUntil = now() + Math.ceil((size * 60_000) / burst);
    }).finally(() => {
      lease.asking = null;
    });
    lease.asking = asking;
    return asking;
  };

  const spend = (key: string, lease: Lease): true => {
    lease.tokens -= 1;
    const size = leaseSize(deps.burst(key));
    if (
      lease.tokens <= size * DEFAULTS.sharedLeaseRefillShare && lease.asking === null &&
      now() >= lease.dryUntil
    ) {
      void ask(key, lease);
    }
    return true;
  };

  /** After a call: spend, refuse, fall back, or ask again for the requests still waiting. */
  const settle = (key: string, lease: Lease): boolean | Promise<boolean> => {
    if (lease.tokens >= 1) return spend(key, lease);
    if (!link.shared) return fallback(key);
    if (now() < lease.dryUntil) return false;
    return wait(key, lease);
  };

  const wait = (key: string, lease: Lease): Promise<boolean> => {
    lease.waiting += 1;
    const call = lease.asking ?? ask(key, lease);
    return call.then(() => {
      lease.waiting -= 1;
      return settle(key, lease);
    });
  };

  /**
   * Sends the debts one call at a time (up to DEFAULTS.sharedSpentTracked tenants may owe after
   * an outage: a call each at once would be a burst at a backend that has just come back). A call
   * that gets no answer keeps its debt and stops the drain: the rest go with each tenant's next
   * call, or the next recovery.
   */
  let draining = false;
  const drain = async (): Promise<void> => {
    if (draining) return;
    draining = true;
    try {
      for (const key of [...spent.keys()]) {
        const debit = spent.get(key) ?? 0; // a tenant's own call may have taken it meanwhile
        if (debit <= 0) continue;
        spent.delete(key);
        const granted = await backend.take(key, 0, deps.burst(key), debit);
        if (granted === null) {
          spent.set(key, (spent.get(key) ?? 0) + debit);
          return;
        }
      }
    } finally {
      draining = false;
    }
  };

  return {
    reconcile() {
      void drain();
    },
    take(key) {
      if (!link.shared) return fallback(key);
      let lease = leases.get(key);
      if (!lease) leases.set(key, lease = { tokens: 0, asking: null, waiting: 0, dryUntil: 0 });
      if (lease.tokens >= 1) return spend(key, lease);
      if (lease.asking === null && now() < lease.dryUntil) return false;
      return wait(key, lease);
    },
    get size() {
      return leases.size;
    },
  };
}
