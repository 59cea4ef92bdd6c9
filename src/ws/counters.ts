/**
 * The relay's live counts and its timer bookkeeping.
 *
 * Serves SPEC "Limits" (browser sockets, sockets waiting for admission: the upgrade ceilings
 * read these counts) and the "nothing leaks" rule: every timer a socket starts goes
 * through {@link SocketTimers}, so `stats().timers` shows what is still pending.
 */
import type { RelayStats } from './types.ts';

/** Mutable counts shared by the relay and its connections. */
export type Counters = RelayStats;

/** A fresh set of zero counts. */
export function newCounters(): Counters {
  return {
    sockets: 0,
    preAuth: 0,
    upstreamSockets: 0,
    subscriptions: 0,
    timers: 0,
    heldFrames: 0,
  };
}

/** A timer handle, whatever the runtime's type. */
type Handle = ReturnType<typeof setTimeout>;

/** A named timer slot of one socket (at most one pending timer per name). */
export type TimerName = 'init' | 'life' | 'ack' | 'upstreamKeepalive' | 'browserKeepalive';

/**
 * The timers of one socket, at most one per name, counted in `counters.timers`. Setting a
 * name that is pending replaces it; `clearAll` leaves none.
 */
export class SocketTimers {
  #pending = new Map<TimerName, { id: Handle; repeat: boolean }>();
  #counters: Counters;

  /** Binds the timers to the relay's counts. */
  constructor(counters: Counters) {
    this.#counters = counters;
  }

  /** Runs `fn` once after `ms` milliseconds. */
  once(name: TimerName, ms: number, fn: () => void): void {
    this.clear(name);
    const id = setTimeout(() => {
      this.#forget(name);
      fn();
    }, ms);
    this.#remember(name, id, false);
  }

  /** Runs `fn` every `ms` milliseconds until cleared. */
  every(name: TimerName, ms: number, fn: () => void): void {
    this.clear(name);
    this.#remember(name, setInterval(fn, ms), true);
  }

  /** Stops the named timer, if pending. */
  clear(name: TimerName): void {
    const timer = this.#pending.get(name);
    if (!timer) return;
    if (timer.repeat) clearInterval(timer.id);
    else clearTimeout(timer.id);
    this.#forget(name);
  }

  /** Stops every timer of the socket. */
  clearAll(): void {
    for (const name of [...this.#pending.keys()]) this.clear(name);
  }

  #remember(name: TimerName, id: Handle, repeat: boolean): void {
    this.#pending.set(name, { id, repeat });
    this.#counters.timers++;
  }

  #forget(name: TimerName): void {
    if (this.#pending.delete(name)) this.#counters.timers--;
  }
}
