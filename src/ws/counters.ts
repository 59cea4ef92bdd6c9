/**
 * The relay's live counts and its timer bookkeeping.
 *
 * Serves SPEC "Limits" (browser sockets, sockets waiting for admission: the upgrade ceilings
 * read these counts) and the rule that nothing leaks (docs/operations.md "Faults"): every timer a
 * socket starts goes through {@link SocketTimers}, so `stats().timers` shows what is still pending.
 */
import type { RelayStats } from './types.ts';
import { SHARED_TIMERS, type TimerEntry, type TimerHeap } from './timer_heap.ts';

/**
 * Mutable counts shared by the relay and its connections: the live ones (`RelayStats`) and
 * `heldFramesTotal`, every frame that had to wait (the upstream not ready, or a subscribe check
 * pending) since the relay started (it only grows).
 */
export type Counters = RelayStats & { heldFramesTotal: number };

/** A fresh set of zero counts. */
export function newCounters(): Counters {
  return {
    sockets: 0,
    preAuth: 0,
    upstreamSockets: 0,
    subscriptions: 0,
    timers: 0,
    heldFrames: 0,
    pausedLegs: 0,
    heldFramesTotal: 0,
  };
}

/** A named timer slot of one socket (at most one pending timer per name). */
export type TimerName =
  | 'init'
  | 'life'
  | 'ack'
  | 'upstreamKeepalive'
  | 'upstreamPong'
  | 'browserKeepalive'
  | 'browserPong'
  | 'browserFlow'
  | 'upstreamFlow';

/**
 * The timers of one socket, at most one per name, counted in `counters.timers`. Setting a
 * name that is pending replaces it; `clearAll` leaves none. They live in one shared
 * {@link TimerHeap} (timer_heap.ts), not in a runtime timer each.
 */
export class SocketTimers {
  #pending = new Map<TimerName, TimerEntry>();
  #counters: Counters;
  #heap: TimerHeap;

  /** Binds the timers to the relay's counts. */
  constructor(counters: Counters, heap: TimerHeap = SHARED_TIMERS) {
    this.#counters = counters;
    this.#heap = heap;
  }

  /** Runs `fn` once after `ms` milliseconds. */
  once(name: TimerName, ms: number, fn: () => void): void {
    this.clear(name);
    this.#remember(
      name,
      this.#heap.schedule(ms, () => {
        this.#forget(name);
        fn();
      }),
    );
  }

  /** Runs `fn` every `ms` milliseconds until cleared. */
  every(name: TimerName, ms: number, fn: () => void): void {
    this.clear(name);
    const tick = () => {
      this.#pending.set(name, this.#heap.schedule(ms, tick));
      fn();
    };
    this.#remember(name, this.#heap.schedule(ms, tick));
  }

  /** Stops the named timer, if pending. */
  clear(name: TimerName): void {
    const entry = this.#pending.get(name);
    if (!entry) return;
    this.#heap.cancel(entry);
    this.#forget(name);
  }

  /** Stops every timer of the socket. */
  clearAll(): void {
    for (const name of [...this.#pending.keys()]) this.clear(name);
  }

  #remember(name: TimerName, entry: TimerEntry): void {
    this.#pending.set(name, entry);
    this.#counters.timers++;
  }

  #forget(name: TimerName): void {
    if (this.#pending.delete(name)) this.#counters.timers--;
  }
}
