/**
 * In-flight counters for GRAPHQL_MAX_CONCURRENT and REST_MAX_CONCURRENT.
 * SPEC "Ceilings": GraphQL requests in flight (counted from admission to the
 * upstream answer) and REST uploads in flight; past them 503 ProxyBusy (src/http/busy.ts).
 */

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
