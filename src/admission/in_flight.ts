/**
 * In-flight counters for GRAPHQL_MAX_CONCURRENT and REST_MAX_CONCURRENT.
 * SPEC "Ceilings": GraphQL requests in flight (counted from admission to the
 * upstream answer) and REST uploads in flight; past them 503 ProxyBusy.
 */
import { DEFAULTS } from '../config/defaults.ts';
import { type Refusal, refusal } from '../http/error_codes.ts';

/** A counter with a ceiling. */
export interface InFlight {
  /** A release function (idempotent) when under the ceiling, else null. */
  tryAcquire(): (() => void) | null;
  /** How many are in flight now. */
  readonly count: number;
}

/** Builds a counter admitting at most `limit` at once. */
export function createInFlight(limit: number): InFlight {
  let count = 0;
  return {
    tryAcquire() {
      if (count >= limit) return null;
      count++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        count--;
      };
    },
    get count() {
      return count;
    },
  };
}

/**
 * 503 ProxyBusy with retry-after: 5, for a request that arrives while the process is past its
 * memory budget (docs/operations.md "Memory"; the spec's busy answer for a new cause).
 */
export function memoryBusy(): Refusal {
  return refusal('ProxyBusy', 'The gateway is short of memory; try again shortly', {
    'retry-after': String(DEFAULTS.busyRetryAfterSeconds),
  });
}

/** 503 ProxyBusy with retry-after: 5. */
export function busy(what: string): Refusal {
  return refusal('ProxyBusy', `Too many ${what} in flight; try again shortly`, {
    'retry-after': String(DEFAULTS.busyRetryAfterSeconds),
  });
}
