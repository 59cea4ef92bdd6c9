/**
 * Flow control for one direction of a relayed socket (docs/operations.md "Slow and vanished peers
 * on the relay"; the spec is silent on slow consumers, so this is what a relay is expected to do).
 *
 * Frames read from a *source* leg are written to a *sink* leg. After each write the sink's
 * unsent bytes (`bufferedAmount`) are read:
 * - past the high-water mark the source stops being read (`pause`, where the transport can:
 *   its frames then stay in the kernel and TCP pushes back to the sender) and the sink is read
 *   back after 1 ms, then after twice as long each time, at most every `flowPollMs` (no
 *   transport reports a drain: a sink that drains at once, as Deno's upgraded socket does
 *   between its one-at-a-time writes, resumes within a millisecond or two, and a stalled one
 *   costs a timer every `flowPollMs`); at or below the low-water mark the source is read again;
 * - a sink that passed the high-water mark and is not back at the low-water mark within
 *   `stallTimeoutMs` (a consumer draining less than high - low bytes in that time), or passes
 *   `bufferCapBytes` (at once, also where the source cannot be paused), is *stalled*: the
 *   owner closes the socket (1013, `close_codes.ts`).
 * Pausing never drops, duplicates or reorders a frame: frames the source already read are
 * still written, in order.
 *
 * While the process's memory accountant is past its pressure threshold (docs/operations.md
 * "Memory") the high-water mark is its lower `pressureHighWaterBytes` (and the low-water mark at
 * most that); every reading of the sink's unsent bytes is reported (`measured`) so the socket's
 * account stays current.
 */
import { DEFAULTS } from '../config/defaults.ts';
import type { Counters, SocketTimers, TimerName } from './counters.ts';
import type { RelayLimits } from './limits.ts';

/** The first read-back after a pause, ms (then doubling up to `flowPollMs`). */
const FIRST_POLL_MS = DEFAULTS.wsFlowFirstPollMs;

/** The leg a direction reads from: pausable where the transport offers it. */
export interface FlowSource {
  pause?(): void;
  resume?(): void;
}

/** The leg a direction writes to. */
export interface FlowSink {
  /** Bytes written and not yet handed to the operating system. */
  bufferedAmount(): number;
}

/** Why a direction gave up: above the mark too long, or past the hard cap. */
export type StallCause = 'timeout' | 'cap';

/** What a direction needs from its socket. */
export interface FlowContext {
  limits: RelayLimits;
  counters: Counters;
  timers: SocketTimers;
  /** The timer slot of this direction's poll. */
  pollTimer: TimerName;
  now(): number;
  /** Called once when the sink stalled; the owner closes the socket. */
  stalled(cause: StallCause): void;
  /** The memory accountant's pressure, when there is one (a field read per frame). */
  memory?: { readonly pressed: boolean; readonly pressureHighWaterBytes: number };
  /** Every reading of the sink's unsent bytes (after each write and each read-back). */
  measured?(bytes: number): void;
}

/** One direction's flow control: call {@link written} after every write to the sink. */
export class FlowDirection {
  #source: FlowSource;
  #sink: FlowSink;
  #ctx: FlowContext;
  #pausedAt = -1;
  #pollMs = 1;
  #over = false;

  /** Binds a source and a sink; nothing is paused yet. */
  constructor(source: FlowSource, sink: FlowSink, ctx: FlowContext) {
    this.#source = source;
    this.#sink = sink;
    this.#ctx = ctx;
  }

  /** Whether the source is paused (or, unpausable, held above the mark) now. */
  get paused(): boolean {
    return this.#pausedAt >= 0;
  }

  /** When the source was paused (ms, the context's clock), or -1 while it is not. */
  get pausedAt(): number {
    return this.#pausedAt;
  }

  /** A frame was written to the sink: checks its unsent bytes against the marks. */
  written(): void {
    if (this.#over) return;
    const ctx = this.#ctx;
    const queued = this.#sink.bufferedAmount();
    ctx.measured?.(queued);
    if (queued <= ctx.limits.highWaterBytes && !(ctx.memory?.pressed && queued > 0)) return;
    if (queued <= this.#highWater()) return;
    if (queued > ctx.limits.bufferCapBytes) return this.#stall('cap');
    if (this.#pausedAt < 0) this.#pause();
  }

  /** Gives back the paused count and the poll timer (socket end); idempotent. */
  stop(): void {
    this.#over = true;
    if (this.#pausedAt < 0) return;
    this.#pausedAt = -1;
    this.#ctx.counters.pausedLegs--;
    this.#ctx.timers.clear(this.#ctx.pollTimer);
  }

  /** The high-water mark now: the lower one while the process is under memory pressure. */
  #highWater(): number {
    const { limits, memory } = this.#ctx;
    return memory?.pressed
      ? Math.min(memory.pressureHighWaterBytes, limits.highWaterBytes)
      : limits.highWaterBytes;
  }

  /** The low-water mark now: never above the high-water mark now. */
  #lowWater(): number {
    return Math.min(this.#ctx.limits.lowWaterBytes, this.#highWater());
  }

  #pause(): void {
    const { counters, timers, limits, pollTimer, now } = this.#ctx;
    this.#pausedAt = now();
    counters.pausedLegs++;
    this.#source.pause?.();
    this.#pollMs = Math.min(FIRST_POLL_MS, limits.flowPollMs);
    timers.once(pollTimer, this.#pollMs, () => this.#poll());
  }

  #poll(): void {
    const { limits, now, timers, pollTimer } = this.#ctx;
    const queued = this.#sink.bufferedAmount();
    this.#ctx.measured?.(queued);
    if (queued > limits.bufferCapBytes) return this.#stall('cap');
    if (queued <= this.#lowWater()) return this.#resume();
    if (now() - this.#pausedAt >= limits.stallTimeoutMs) return this.#stall('timeout');
    this.#pollMs = Math.min(this.#pollMs * 2, limits.flowPollMs);
    timers.once(pollTimer, this.#pollMs, () => this.#poll());
  }

  #resume(): void {
    const { counters, timers, pollTimer } = this.#ctx;
    this.#pausedAt = -1;
    counters.pausedLegs--;
    timers.clear(pollTimer);
    this.#source.resume?.();
  }

  #stall(cause: StallCause): void {
    this.stop();
    this.#ctx.stalled(cause);
  }
}
