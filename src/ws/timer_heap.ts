/**
 * One host timer for many sockets' timers. Each relayed socket keeps keepalive timers and a
 * lifetime deadline; here a timer is one small entry in a binary min-heap ordered by deadline, and
 * the process holds a single runtime timer, armed for the earliest deadline and cleared when the
 * heap empties (so an idle relay holds none). It exists for memory alone: it stays while the
 * relay's goal of memory per idle relayed socket (docs/benchmarks.md "WebSocket relay") is missed
 * without it, as measured in docs/benchmarks.md "Speed-only pieces".
 *
 * Deadlines keep millisecond precision: entries due by the time the runtime timer fires run in
 * deadline order (ties in the order they were scheduled). Cancelling removes the entry at once,
 * so a long deadline cleared early (a socket's lifetime) holds nothing afterwards. The GraphQL
 * forward's deadline (hosts/node_http/dispatch_post.ts) shares the same heap: one entry per call
 * instead of a runtime timer set and cleared per call.
 */

/**
 * Told when one of its entries ran, just before the entry's `fn` (so a socket's timer book
 * needs no wrapper closure per timer).
 */
export interface TimerOwner {
  timerRan(entry: TimerEntry): void;
}

/** A scheduled call; `cancel` it through the heap that made it. */
export interface TimerEntry {
  /** Due time, ms on the performance.now() clock. */
  readonly at: number;
  /** Position in the heap; -1 once run or cancelled. */
  index: number;
  /** Tie-break: scheduling order. */
  readonly seq: number;
  /** Called with `target` (a shared function and its object: no closure per timer). */
  // deno-lint-ignore no-explicit-any
  readonly fn: (target: any) => void;
  readonly target: unknown;
  /** Told when the entry ran (null: nobody). */
  readonly owner: TimerOwner | null;
}

function before(a: TimerEntry, b: TimerEntry): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

/** A min-heap of timer entries behind one runtime timer. */
export class TimerHeap {
  #heap: TimerEntry[] = [];
  #seq = 0;
  #armed: ReturnType<typeof setTimeout> | undefined;
  #armedAt = Infinity;

  /** Entries pending. */
  get size(): number {
    return this.#heap.length;
  }

  /**
   * Calls `fn(target)` once, `ms` milliseconds from now (`owner.timerRan` first, when given).
   * A socket's timers pass a function shared by every socket and the socket's own object, so a
   * pending timer holds no closure.
   */
  schedule<T>(
    ms: number,
    fn: (target: T) => void,
    target?: T,
    owner: TimerOwner | null = null,
  ): TimerEntry {
    const entry: TimerEntry = {
      at: performance.now() + Math.max(0, ms),
      index: -1,
      seq: this.#seq++,
      fn,
      target,
      owner,
    };
    entry.index = this.#heap.push(entry) - 1;
    this.#up(entry.index);
    this.#arm();
    return entry;
  }

  /** Removes `entry` if it is still pending (a no-op once it ran or was cancelled). */
  cancel(entry: TimerEntry): void {
    const i = entry.index;
    if (i < 0 || this.#heap[i] !== entry) return;
    entry.index = -1;
    const last = this.#heap.pop()!;
    if (last !== entry) {
      this.#heap[i] = last;
      last.index = i;
      this.#down(i);
      this.#up(last.index);
    }
    if (this.#heap.length === 0) this.#disarm();
  }

  /** Runs every entry due now, then arms for the next one. */
  #fire = (): void => {
    this.#armed = undefined;
    this.#armedAt = Infinity;
    const now = performance.now();
    const firstLater = this.#seq; // entries scheduled by these calls wait for the next turn
    while (this.#heap.length > 0 && this.#heap[0].at <= now && this.#heap[0].seq < firstLater) {
      const entry = this.#heap[0];
      this.cancel(entry);
      try {
        entry.owner?.timerRan(entry);
        entry.fn(entry.target);
      } catch (error) {
        // as an uncaught error in a runtime timer callback would be, without stopping the others
        queueMicrotask(() => {
          throw error;
        });
      }
    }
    this.#arm();
  };

  #arm(): void {
    const top = this.#heap[0];
    if (top === undefined || top.at >= this.#armedAt) return;
    this.#disarm();
    this.#armedAt = top.at;
    this.#armed = setTimeout(this.#fire, Math.max(0, Math.ceil(top.at - performance.now())));
  }

  #disarm(): void {
    if (this.#armed !== undefined) clearTimeout(this.#armed);
    this.#armed = undefined;
    this.#armedAt = Infinity;
  }

  #up(i: number): void {
    const heap = this.#heap;
    const entry = heap[i];
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(entry, heap[parent])) break;
      heap[i] = heap[parent];
      heap[i].index = i;
      i = parent;
    }
    heap[i] = entry;
    entry.index = i;
  }

  #down(i: number): void {
    const heap = this.#heap;
    const entry = heap[i];
    const n = heap.length;
    while (true) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && before(heap[right], heap[left]) ? right : left;
      if (!before(heap[child], entry)) break;
      heap[i] = heap[child];
      heap[i].index = i;
      i = child;
    }
    heap[i] = entry;
    entry.index = i;
  }
}

/** The process's one heap (every relay's socket timers share it). */
export const SHARED_TIMERS = new TimerHeap();
