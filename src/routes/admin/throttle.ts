/**
 * The admin password throttle: SPEC "Authentication" 4 ("Each attempt pauses a fixed interval;
 * wrong password 401 AdminBadPassword; repeated attempts 429 AdminThrottled with retry-after. The
 * throttle key is the client address, taking the last hop of x-forwarded-for only when
 * TRUST_FORWARDED_FOR is true or 1; the counter is per-process memory plus a shared backend row
 * when a service-role key exists").
 *
 * Rule (same in memory and in svc_admin_throttle_take): every attempt is counted as a failure
 * when it is let through (a right password then clears the key). Once `freeAttempts` attempts
 * are counted, the key waits `min(capMs, baseWaitMs * 2^(failures - freeAttempts))` before its
 * next attempt; an attempt while waiting is refused and not counted. Memory and the shared row
 * are both asked; the longer wait wins. A backend that does not answer, or answers a wait the rule
 * cannot give (not a number from 0 to capMs), leaves memory alone in charge (the operator is not
 * locked out by a database outage).
 */
import { LRUCache } from 'lru-cache';
import type { BackendRpc } from '../../backend/rpc.ts';
import { DEFAULTS } from '../../config/defaults.ts';
import type { ResolvedConfig } from '../../config/resolved.ts';

/** The numbers of the rule (ms except freeAttempts). */
export type ThrottleSettings = ResolvedConfig['admin']['throttle'];

/** The throttle of one proxy instance. */
export interface Throttle {
  /** Reserves an attempt for `key`: 0 = go ahead (counted), else the ms left to wait. */
  take(key: string): Promise<number>;
  /** A right password: forgets the key's failures (memory and shared row). */
  clear(key: string): Promise<void>;
}

interface Entry {
  failures: number;
  blockedUntil: number;
}

/** The wait after `failures` counted attempts (0 while free attempts remain). */
export function waitAfter(settings: ThrottleSettings, failures: number): number {
  if (failures < settings.freeAttempts) return 0;
  const exponent = Math.min(failures - settings.freeAttempts, 40);
  return Math.min(settings.capMs, settings.baseWaitMs * 2 ** exponent);
}

/**
 * The wait svc_admin_throttle_take answered (ms), when it is one the rule can give: a finite
 * number from 0 to `capMs`. Anything else (not a number, negative, past the cap) is not the
 * rule's answer and counts as no answer: memory alone decides (docs/operations.md "Faults": a
 * mis-shaped row must not lock the operator out for longer than the rule allows).
 */
export function sharedWait(data: unknown, capMs: number): number {
  if (typeof data !== 'number' || !Number.isFinite(data)) return 0;
  return data >= 0 && data <= capMs ? data : 0;
}

/**
 * Builds the throttle. `shared` is the service-role RPC client (null without a service-role
 * key); `now` the clock in ms.
 */
export function createThrottle(
  settings: ThrottleSettings,
  shared: BackendRpc | null,
  now: () => number = Date.now,
): Throttle {
  const memory = new LRUCache<string, Entry>({ max: DEFAULTS.adminThrottleKeys });

  const takeMemory = (key: string): number => {
    const entry = memory.get(key) ?? { failures: 0, blockedUntil: 0 };
    if (entry.blockedUntil > now()) return entry.blockedUntil - now();
    entry.failures += 1;
    const wait = waitAfter(settings, entry.failures);
    entry.blockedUntil = wait > 0 ? now() + wait : 0;
    memory.set(key, entry);
    return 0;
  };

  const takeShared = async (key: string): Promise<number> => {
    if (shared === null) return 0;
    const result = await shared.call('svc_admin_throttle_take', {
      p_key: key,
      p_free: settings.freeAttempts,
      p_base_ms: Math.round(Math.min(settings.baseWaitMs, 2 ** 31 - 1)),
      p_cap_ms: Math.round(Math.min(settings.capMs, 2 ** 31 - 1)),
    }, DEFAULTS.adminDatabaseTimeoutMs);
    return result.status === 200 ? sharedWait(result.data, settings.capMs) : 0;
  };

  return {
    async take(key) {
      const local = takeMemory(key);
      if (local > 0) return local;
      return await takeShared(key);
    },
    async clear(key) {
      memory.delete(key);
      if (shared) {
        await shared.call(
          'svc_admin_throttle_clear',
          { p_key: key },
          DEFAULTS.adminDatabaseTimeoutMs,
        );
      }
    },
  };
}

/**
 * The throttle key of a request: the peer address, or the last x-forwarded-for hop when
 * `trustForwardedFor` (TRUST_FORWARDED_FOR true or 1). 'unknown' when neither is known.
 */
export function throttleKey(
  request: Request,
  remoteAddress: string | undefined,
  trustForwardedFor: boolean,
): string {
  if (trustForwardedFor) {
    const hops = (request.headers.get('x-forwarded-for') ?? '').split(',')
      .map((hop) => hop.trim()).filter((hop) => hop !== '');
    const last = hops.at(-1);
    if (last) return last.slice(0, 200);
  }
  return (remoteAddress ?? 'unknown').slice(0, 200);
}
