/**
 * The session gate, on: SPEC "Authentication" 2-3, step 2 of "Order in which a GraphQL body is
 * checked", "Gate and fences" and the gate row of "Ceilings".
 *
 * - Fast refusals with zero network calls (session_token.ts): 401 AuthSessionRequired.
 * - The bot set from svc_my_bot_ids, called with the caller's token through supabase-js; cached
 *   per token hash for cacheTtlMs (30 s) and never past the token's exp; concurrent askers with
 *   one token share one call. A 401 from the database layer is 401 AuthSessionRequired (also
 *   cached); unreachable, non-200 or non-array is 503 ProxyAuthUnavailable (not cached).
 * - Misses reaching the backend are capped per process (miss_budget.ts): 503
 *   ProxyAuthUnavailable with no network call.
 * - The raw token is never stored or logged: caches are keyed by its sha256.
 */
import { LRUCache } from 'lru-cache';
import { DEFAULTS } from '../config/defaults.ts';
import type { ResolvedConfig } from '../config/resolved.ts';
import type { BackendRpc } from '../backend/rpc.ts';
import { type Refusal, refusal } from '../http/error_codes.ts';
import type { Gate, GateVerdict, Session } from './gate.ts';
import { createMissBudget, type MissBudget } from './miss_budget.ts';
import {
  bearerOf,
  readSessionToken,
  sessionRequired,
  type SessionToken,
  tokenHash,
} from './session_token.ts';
import { tenantKeyOf } from './tenants.ts';

/** What the gate needs besides the configuration. */
export interface GateOnDeps {
  /** svc_my_bot_ids caller: the backend URL with the anon key. */
  rpc: BackendRpc;
  /** Clock, ms since the epoch (default Date.now). */
  now?: () => number;
  /** The miss budget (default: 600 a minute, a fifth held). */
  budget?: MissBudget;
  /** Told each admission's path: cache hit, backend miss, or refused by the miss budget. */
  observe?: (result: GateLookup) => void;
}

/** How an admission was decided (the metrics' gate series). */
export type GateLookup = 'hit' | 'miss' | 'over_budget';

/** 503 ProxyAuthUnavailable with `why`. */
export function authUnavailable(why: string): Refusal {
  return refusal('ProxyAuthUnavailable', why);
}

interface Cached {
  verdict: GateVerdict;
  /** ms since the epoch; the entry is a miss from then on. */
  until: number;
}

/** Bot ids of a 200 answer that is an array of strings, else null. */
function botIdsOf(data: unknown): string[] | null {
  if (!Array.isArray(data)) return null;
  return data.every((id) => typeof id === 'string') ? data as string[] : null;
}

/**
 * Builds the gate-on gate. `config.auth` must be on (url and anonKey set). Never throws:
 * every failure is a verdict.
 */
export function createGateOn(config: ResolvedConfig, deps: GateOnDeps): Gate {
  const now = deps.now ?? Date.now;
  const issuer = `${config.auth.url}/auth/v1`;
  const budget = deps.budget ??
    createMissBudget(DEFAULTS.gateMissesPerMinute, DEFAULTS.gateMissesHeldShare, now);
  const verdicts = new LRUCache<string, Cached>({ max: DEFAULTS.gateSessionsCached });
  /** Token hashes admitted before, until their exp: they may spend the held share. */
  const admitted = new LRUCache<string, number>({ max: DEFAULTS.gateSessionsCached });
  const pending = new Map<string, Promise<GateVerdict>>();

  const remember = (token: SessionToken, verdict: GateVerdict) => {
    const until = Math.min(now() + config.auth.cacheTtlMs, token.expiresAt);
    verdicts.set(token.hash, { verdict, until });
  };

  const lookup = async (token: SessionToken): Promise<GateVerdict> => {
    const before = admitted.get(token.hash);
    const admittedBefore = before !== undefined && before > now();
    if (!budget.take(admittedBefore)) {
      deps.observe?.('over_budget');
      return { refused: authUnavailable('The session backend is busy; try again shortly') };
    }
    deps.observe?.('miss');
    const result = await deps.rpc.call(
      config.auth.rpcName,
      {},
      DEFAULTS.gateLookupTimeoutMs,
      token.jwt,
    );
    if (result.status === 401) {
      const verdict = { refused: sessionRequired('The session is not valid; sign in again') };
      remember(token, verdict);
      return verdict;
    }
    const ids = result.status === 200 ? botIdsOf(result.data) : null;
    if (ids === null) {
      return { refused: authUnavailable('The session backend is unavailable; try again shortly') };
    }
    const botIds: ReadonlySet<string> = new Set(ids);
    const session: Session = Object.freeze({
      botIds,
      expiresAt: token.expiresAt,
      tenantKey: tenantKeyOf(botIds),
      ...(token.subject === undefined ? {} : { subject: token.subject }),
    });
    const verdict = { session };
    remember(token, verdict);
    admitted.set(token.hash, token.expiresAt);
    return verdict;
  };

  return {
    state: 'on',
    forget(subject) {
      const stale = [...verdicts.entries()].filter(([, cached]) =>
        'session' in cached.verdict && cached.verdict.session.subject === subject
      );
      for (const [hash] of stale) verdicts.delete(hash);
    },
    admit(authorization) {
      // Cache first: an entry never outlives its token's exp and was stored for this issuer.
      const jwt = bearerOf(authorization);
      const cached = jwt === null ? undefined : verdicts.get(tokenHash(jwt));
      if (cached && cached.until > now()) {
        deps.observe?.('hit');
        return Promise.resolve(cached.verdict);
      }
      const token = readSessionToken(authorization, issuer, now());
      if ('code' in token) return Promise.resolve({ refused: token });
      let asking = pending.get(token.hash);
      if (!asking) {
        asking = lookup(token).finally(() => pending.delete(token.hash));
        pending.set(token.hash, asking);
      }
      return asking;
    },
  };
}
