/**
 * The resource fence, in memory: SPEC "Resource fence" and "Resource binding
 * states". An answer to a request that named exactly one bot binds the 24-hex
 * ids it carries to that bot; a second bot makes an id shared; a shared id
 * refuses nobody. Bindings live 24 hours, 50,000 per process.
 */
import { LRUCache } from 'lru-cache';
import { DEFAULTS } from '../config/defaults.ts';
import type { ResourceFenceMode } from '../config/resolved.ts';
import { type Refusal, refusal } from '../http/error_codes.ts';

/** A resource named by a request: the id (lowercase 24-hex) and the argument it came under. */
export interface ResourceReference {
  id: string;
  argument: string;
}

/** What the fence knows of an id. */
export type Binding = { bot: string; shared: false } | { bot: null; shared: true };

/** The in-memory binding table. */
export interface ResourceFence {
  readonly mode: ResourceFenceMode;
  /** The binding of an id, or undefined when unknown. */
  get(id: string): Binding | undefined;
  /**
   * Step 20: refuses (403 ResourceNotAllowed) the first resource known to
   * belong to a bot outside `owners`; in strict mode also an unknown one.
   * `owners` null means the caller has no fence (nothing is "another bot").
   */
  check(
    resources: readonly ResourceReference[],
    owners: ReadonlySet<string> | null,
  ): Refusal | null;
  /**
   * Learns from an answer to a request that named exactly `bot`: binds each id
   * (at most 5,000 read) except the bot's own id and ids the request carried.
   */
  learn(bot: string, answerIds: readonly string[], carried: ReadonlySet<string>): string[];
  /** Sets a binding learned elsewhere (the shared store). */
  remember(id: string, binding: Binding): void;
  readonly size: number;
}

/** The two refusal sentences of the spec. */
export function foreignResource(argument: string): Refusal {
  return refusal(
    'ResourceNotAllowed',
    `The ${argument} in this request belongs to another workspace`,
  );
}

/** Strict mode, unknown id. */
export function unknownResource(argument: string): Refusal {
  return refusal(
    'ResourceNotAllowed',
    `This proxy cannot tell which bot that ${argument} belongs to, and does not forward what it cannot check`,
  );
}

/**
 * Builds the in-memory fence. `maxBindings` and `ttlMs` default to the spec's (50,000 bindings,
 * each held 24 hours). `now` (ms, monotonic) is a test seam for the 24 hours: given, every
 * expiry check reads it; omitted, the cache reads `performance.now()`.
 */
export function createResourceFence(
  mode: ResourceFenceMode,
  maxBindings: number = DEFAULTS.resourceBindings,
  ttlMs: number = DEFAULTS.resourceBindingTtlMs,
  now?: () => number,
): ResourceFence {
  const bindings = new LRUCache<string, Binding>({
    max: maxBindings,
    ttl: ttlMs,
    ...(now ? { perf: { now }, ttlResolution: 0 } : {}),
  });
  const bind = (id: string, bot: string) => {
    const known = bindings.get(id);
    if (known === undefined) bindings.set(id, { bot, shared: false });
    else if (!known.shared && known.bot !== bot) bindings.set(id, { bot: null, shared: true });
    else if (!known.shared) bindings.set(id, known); // refreshes its 24 hours
  };
  return {
    mode,
    get: (id) => bindings.get(id),
    check(resources, owners) {
      if (mode === 'off') return null;
      for (const { id, argument } of resources) {
        const known = bindings.get(id);
        if (known === undefined) {
          if (mode === 'strict') return unknownResource(argument);
          continue;
        }
        if (known.shared || owners === null) continue;
        if (!owners.has(known.bot)) return foreignResource(argument);
      }
      return null;
    },
    learn(bot, answerIds, carried) {
      if (mode === 'off') return [];
      const learned: string[] = [];
      const limit = Math.min(answerIds.length, DEFAULTS.resourceIdsLearnedPerAnswer);
      for (let i = 0; i < limit; i++) {
        const id = answerIds[i];
        if (id === bot.toLowerCase() || carried.has(id)) continue;
        bind(id, bot);
        learned.push(id);
      }
      return learned;
    },
    remember: (id, binding) => void bindings.set(id, binding),
    get size() {
      return bindings.size;
    },
  };
}
