/**
 * The relay's live counts and its timer bookkeeping.
 *
 * Serves SPEC "Limits" (browser sockets, sockets waiting for admission: the upgrade ceilings
 * read these counts) and the rule that nothing leaks (docs/operations.md "Faults"): every timer a
 * socket starts goes through {@link SocketTimers}, so `stats().timers` shows what is still pending.
 */
import type { RelayStats } from './types.ts';
import { SHARED_TIMERS, type TimerEntry, type TimerHeap, type TimerOwner } from './timer_heap.ts';

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

/** Each timer name's slot in a socket's book (one array, no map per socket). */
const SLOT: Readonly<Record<TimerName, number>> = {
  init: 0,
  life: 1,
  ack: 2,
  upstreamKeepalive: 3,
  upstreamPong: 4,
  browserKeepalive: 5,
  browserPong: 6,
  browserFlow: 7,
  upstreamFlow: 8,
};
const SLOTS = Object.keys(SLOT).length;

/**
 * The timers of one socket, at most one per name, counted in `counters.timers`. Setting a
 * name that is pending replaces it; `clearAll` leaves none. They live in one shared
 * {@link TimerHeap} (timer_heap.ts), not in a runtime timer each.
 */
export class SocketTimers implements TimerOwner {
  /** The pending entry of each name, by its SLOT (null: none). */
  #pending: (TimerEntry | null)[] = new Array(SLOTS).fill(null);
  #counters: Counters;
  #heap: TimerHeap;

  /** Binds the timers to the relay's counts. */
  constructor(counters: Counters, heap: TimerHeap = SHARED_TIMERS) {
    this.#counters = counters;
    this.#heap = heap;
  }

  /**
   * Runs `fn(target)` once after `ms` milliseconds: `fn` is shared by every socket (a static
   * method) and `target` is the socket's part it acts on, so a pending timer holds no closure.
   */
  once<T>(name: TimerName, ms: number, fn: (target: T) => void, target: T): void {
    this.clear(name);
    this.#pending[SLOT[name]] = this.#heap.schedule(ms, fn, target, this);
    this.#counters.timers++;
  }

  /** Runs `fn` every `ms` milliseconds until cleared. */
  every(name: TimerName, ms: number, fn: () => void): void {
    const tick = () => {
      this.once(name, ms, tick, undefined);
      fn();
    };
    this.once(name, ms, tick, undefined);
  }

  /** Stops the named timer, if pending. */
  clear(name: TimerName): void {
    this.#clearSlot(SLOT[name]);
  }

  /** Stops every timer of the socket. */
  clearAll(): void {
    for (let slot = 0; slot < SLOTS; slot++) this.#clearSlot(slot);
  }

  /** The heap ran one of this socket's entries: it is no longer pending (TimerOwner). */
  timerRan(entry: TimerEntry): void {
    const slot = this.#pending.indexOf(entry);
    if (slot < 0) return;
    this.#pending[slot] = null;
    this.#counters.timers--;
  }

  #clearSlot(slot: number): void {
    const entry = this.#pending[slot];
    if (!entry) return;
    this.#heap.cancel(entry);
    this.#pending[slot] = null;
    this.#counters.timers--;
  }
}
