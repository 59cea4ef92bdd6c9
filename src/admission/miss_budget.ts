/**
 * The per-process budget of gate lookups that miss the cache and reach the backend: SPEC
 * "Ceilings" ("Gate misses reaching the backend: 600 per minute, a fifth held for
 * already-admitted sessions"; past it 503 ProxyAuthUnavailable with no network call).
 *
 * A token bucket holding a minute's worth (600), refilled continuously. A token hash never
 * admitted before may spend only down to the held fifth (so 480 in a burst); a token hash
 * admitted before may spend the held fifth too.
 */

/** The budget. */
export interface MissBudget {
  /** Spends one miss; false when none is left for this kind of caller. */
  take(admittedBefore: boolean): boolean;
}

/** Builds a budget of `perMinute` misses with `heldShare` (0-1) held; `now` in ms. */
export function createMissBudget(
  perMinute: number,
  heldShare: number,
  now: () => number = Date.now,
): MissBudget {
  const held = perMinute * heldShare;
  let tokens = perMinute;
  let refilledAt = now();
  return {
    take(admittedBefore) {
      const t = now();
      tokens = Math.min(perMinute, tokens + (Math.max(0, t - refilledAt) * perMinute) / 60_000);
      refilledAt = t;
      const floor = admittedBefore ? 0 : held;
      if (tokens - 1 < floor) return false;
      tokens -= 1;
      return true;
    },
  };
}
