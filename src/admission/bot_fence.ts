/**
 * The bot fence with the gate off: SPEC "Bot fence". Request-time by default
 * (the deployment's bots asked of the upstream with the master token, cached
 * ttlMs, asked again retryMs after a failure, each ask bounded by timeoutMs);
 * a list in allowedBotIds freezes it; 'any' disables it.
 */
import type { ResolvedConfig } from '../config/resolved.ts';
import { fetchWorkspaceBots } from '../upstream/service_operations.ts';

/** The fence's answer: a set, no fence at all, or unavailable (503 ProxyFenceUnavailable). */
export type FenceAnswer = ReadonlySet<string> | 'any' | 'unavailable';

/** Resolves the deployment's bot set. */
export interface BotFence {
  /** The answer; synchronous when one is cached and fresh (or the fence is frozen or off). */
  resolve(): FenceAnswer | Promise<FenceAnswer>;
}

/** Builds the gate-off bot fence for this configuration. */
export function createBotFence(
  config: ResolvedConfig,
  fetchImpl: typeof fetch,
  now: () => number = Date.now,
): BotFence {
  if (config.allowedBotIds === 'any') return { resolve: () => 'any' };
  if (config.allowedBotIds) {
    const frozen = new Set(config.allowedBotIds);
    return { resolve: () => frozen };
  }
  return requestTimeFence(config, fetchImpl, now);
}

function requestTimeFence(
  config: ResolvedConfig,
  fetchImpl: typeof fetch,
  now: () => number,
): BotFence {
  let cached: ReadonlySet<string> | null = null;
  /** When the cached answer (or the last failure) stops being good enough. */
  let nextAskAt = 0;
  let pending: Promise<void> | null = null;

  const ask = async () => {
    const token = config.token;
    const tuning = config.fence;
    if (token === null || tuning === null) return;
    const workspaces = await fetchWorkspaceBots(
      fetchImpl,
      config.upstream,
      token,
      tuning.timeoutMs,
    );
    if (workspaces) {
      cached = new Set(workspaces.flatMap((ws) => ws.botIds));
      nextAskAt = now() + tuning.ttlMs;
    } else {
      nextAskAt = now() + tuning.retryMs;
    }
  };

  const refresh = () => {
    pending ??= ask().finally(() => {
      pending = null;
    });
    return pending;
  };

  const answer = (): FenceAnswer => cached ?? 'unavailable';
  return {
    resolve() {
      if (now() < nextAskAt) return answer();
      if (cached) {
        refresh(); // a stale answer is served while one ask refreshes it
        return cached;
      }
      return refresh().then(answer);
    },
  };
}
