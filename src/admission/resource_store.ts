/**
 * The resource fence's shared store: SPEC "Resource fence" (shared store) and "Resource binding
 * states", so that gateway processes sharing one database agree on ownership.
 *
 * - Reads: before step 20, the ids a request names that memory does not know are asked of
 *   svc_resource_owner_lookup (one call per request, at most 500 ids, 2 s deadline); what the
 *   store knows is remembered in the in-memory fence, and an id it does not know is remembered
 *   as unknown for a minute (not asked again meanwhile). Concurrent requests naming the same id
 *   share one question.
 * - Writes: only for ids a caller names (in a request, refused or not) whose binding memory
 *   holds; sent through svc_resource_bind in batches of up to 500 bindings, 250 ms after the
 *   first one queued; an id written is written again after 6 hours (the database then refreshes
 *   its row), or sooner when this process learned a second bot for it (shared).
 * - An unresponsive store (deadline passed, unreachable, any non-2xx) is left alone 5 s: no
 *   reads, no writes; the fence decides from memory meanwhile (bound forwards unknown ids,
 *   strict refuses them). Rows older than a day are invisible: the database's rule.
 *
 * Service role only (BACKEND_SERVICE_ROLE_KEY). Never throws, never logs a key.
 */
import { LRUCache } from 'lru-cache';
import { DEFAULTS } from '../config/defaults.ts';
import type { BackendRpc } from '../backend/rpc.ts';
import type { Binding, ResourceFence } from './resource_fence.ts';

/** The store as step 20 and the answer path use it. */
export interface ResourceStore {
  /**
   * Before step 20: asks the store about `ids` (lowercase 24-hex) unknown in memory. Null when
   * there is nothing to wait for (all known, remembered as unknown, or the store left alone),
   * so a request that needs no question is decided without waiting.
   */
  lookup(ids: readonly string[]): Promise<void> | null;
  /** After step 20: `ids` a caller named; queues the bindings memory holds for them. */
  named(ids: readonly string[]): void;
  /** An answer to a request naming exactly `bot` bound `ids` in memory (fence.learn's result). */
  learned(bot: string, ids: readonly string[]): void;
  /** Sends what is queued (one batch), stops the timer; resolves when no call is in flight. */
  close(): Promise<void>;
}

/** What the store needs. */
export interface ResourceStoreDeps {
  /** Service-role RPC on the backend. */
  rpc: BackendRpc;
  /** The in-memory fence it fills and reads. */
  fence: ResourceFence;
  /** Clock, ms since the epoch (default Date.now). */
  now?: () => number;
}

/** One element of svc_resource_bind's argument. */
interface BindRow {
  resource_id: string;
  bot_id: string;
}

/** What svc_resource_bind accepts (any other row would make it refuse the whole batch). */
const BINDABLE_ID = /^[0-9a-f]{24}$/;
const BINDABLE_BOT = /^[A-Za-z0-9_-]{1,64}$/;

/** A row of svc_resource_owner_lookup's answer, or null for anything else. */
function bindingOf(row: unknown): { id: string; binding: Binding } | null {
  if (typeof row !== 'object' || row === null) return null;
  const r = row as Record<string, unknown>;
  if (typeof r.resource_id !== 'string') return null;
  if (r.shared === true) return { id: r.resource_id, binding: { bot: null, shared: true } };
  if (typeof r.bot_id !== 'string') return null;
  return { id: r.resource_id, binding: { bot: r.bot_id, shared: false } };
}

/** Memory's binding merged with the store's: two different bots make the id shared. */
function merged(known: Binding | undefined, stored: Binding): Binding | null {
  if (known === undefined) return stored;
  if (known.shared) return null;
  if (stored.shared || stored.bot !== known.bot) return { bot: null, shared: true };
  return null;
}

/** Builds the shared store over `deps.fence`. */
export function createResourceStore(deps: ResourceStoreDeps): ResourceStore {
  const { rpc, fence } = deps;
  const now = deps.now ?? Date.now;
  const deadline = DEFAULTS.storeLookupDeadlineMs;
  const tracked = { max: DEFAULTS.storeIdsTracked };
  let leftAloneUntil = 0;
  /** id → when the store's "unknown" stops being believed. */
  const unknown = new LRUCache<string, number>(tracked);
  /** id → how many bots were written for it, and when. */
  const written = new LRUCache<string, { bots: number; at: number }>(tracked);
  /** id → the bots answers in this process bound it to (at most two: then it is shared). */
  const learnedBots = new LRUCache<string, string[]>({
    max: DEFAULTS.resourceBindings,
    ttl: DEFAULTS.resourceBindingTtlMs,
  });
  const asking = new Map<string, Promise<void>>();
  let queue: BindRow[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  let flushing: Promise<void> = Promise.resolve();

  const available = () => now() >= leftAloneUntil;
  const leaveAlone = () => leftAloneUntil = now() + DEFAULTS.storeUnavailableMs;

  const ask = async (ids: string[]) => {
    const result = await rpc.call('svc_resource_owner_lookup', { p_ids: ids }, deadline);
    if (result.status !== 200 || !Array.isArray(result.data)) return void leaveAlone();
    const found = new Set<string>();
    for (const row of result.data) {
      const read = bindingOf(row);
      if (!read) continue;
      found.add(read.id);
      const next = merged(fence.get(read.id), read.binding);
      if (next) fence.remember(read.id, next);
    }
    const until = now() + DEFAULTS.storeUnknownRecheckMs;
    for (const id of ids) if (!found.has(id)) unknown.set(id, until);
  };

  /** A batch not written: its ids are written again the next time a caller names them. */
  const unwritten = (batch: BindRow[]) => {
    for (const row of batch) written.delete(row.resource_id);
  };

  const send = async (batch: BindRow[]) => {
    // A batch queued behind one that failed waits out the 5 s like everything else.
    if (!available()) return unwritten(batch);
    const result = await rpc.call('svc_resource_bind', { p_bindings: batch }, deadline);
    if (result.status >= 200 && result.status < 300) return;
    leaveAlone();
    unwritten(batch);
  };

  const flush = () => {
    timer = null;
    if (queue.length === 0) return flushing;
    const batch = queue.slice(0, DEFAULTS.storeBatchIds);
    queue = queue.slice(DEFAULTS.storeBatchIds);
    flushing = flushing.then(() => send(batch));
    if (queue.length > 0) timer = setTimeout(flush, DEFAULTS.storeBatchMs);
    return flushing;
  };

  const enqueue = (rows: BindRow[]) => {
    queue.push(...rows);
    if (queue.length >= DEFAULTS.storeBatchIds) {
      if (timer !== null) clearTimeout(timer);
      void flush();
    } else if (timer === null) {
      timer = setTimeout(flush, DEFAULTS.storeBatchMs);
    }
  };

  /** The bots to write for `id`: those learned here, else memory's single owner. */
  const botsToWrite = (id: string): string[] => {
    if (!BINDABLE_ID.test(id)) return [];
    const known = fence.get(id);
    const bots = learnedBots.get(id) ?? (known && !known.shared ? [known.bot] : []);
    return bots.filter((bot) => BINDABLE_BOT.test(bot));
  };

  return {
    lookup(ids) {
      if (!available()) return null;
      const t = now();
      const waits: Promise<void>[] = [];
      const wanted: string[] = [];
      for (const id of new Set(ids)) {
        if (fence.get(id) !== undefined) continue;
        const pending = asking.get(id);
        if (pending) waits.push(pending);
        else if ((unknown.get(id) ?? 0) <= t) wanted.push(id);
      }
      for (let i = 0; i < wanted.length; i += DEFAULTS.storeBatchIds) {
        const chunk = wanted.slice(i, i + DEFAULTS.storeBatchIds);
        const call = ask(chunk).finally(() => {
          for (const id of chunk) if (asking.get(id) === call) asking.delete(id);
        });
        for (const id of chunk) asking.set(id, call);
        waits.push(call);
      }
      return waits.length === 0 ? null : Promise.all(waits).then(() => {});
    },
    named(ids) {
      if (!available()) return;
      const t = now();
      const rows: BindRow[] = [];
      for (const id of new Set(ids)) {
        const bots = botsToWrite(id);
        if (bots.length === 0) continue;
        const last = written.get(id);
        const fresh = last && t - last.at < DEFAULTS.storeRewriteAfterMs;
        if (fresh && last.bots >= bots.length) continue;
        written.set(id, { bots: bots.length, at: t });
        for (const bot of bots) rows.push({ resource_id: id, bot_id: bot });
      }
      if (rows.length > 0) enqueue(rows);
    },
    learned(bot, ids) {
      for (const id of ids) {
        const bots = learnedBots.get(id);
        if (!bots) learnedBots.set(id, [bot]);
        else if (bots.length < 2 && !bots.includes(bot)) learnedBots.set(id, [...bots, bot]);
      }
    },
    async close() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      if (available() && queue.length > 0) {
        const batch = queue.slice(0, DEFAULTS.storeBatchIds);
        flushing = flushing.then(() => send(batch));
      }
      queue = [];
      await flushing;
    },
  };
}
