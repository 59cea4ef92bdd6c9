/**
 * Flow control for one direction of a relayed socket (docs/operations.md "Slow and vanished peers
 * on the relay"; the spec is silent on slow consumers, so this is what a relay is expected to do).
 *
 * Frames read from a *source* leg are written to a *sink* leg. After each write the sink's
 * unsent bytes (`bufferedAmount`) are read:
 * - past the high-water mark the source stops being read (`pause`, where the transport can:
 *   its frames then stay in the kernel and TCP pushes back to the sender) and the sink is read
 *   back after 1 ms, then after twice as long each time, at most every `wsFlowPollMs` (no
 *   transport reports a drain: a sink that drains at once, as Deno's upgraded socket does
 *   between its one-at-a-time writes, resumes within a millisecond or two, and a stalled one
 *   costs a timer every `wsFlowPollMs`); at or below the low-water mark the source is read again;
 * - a sink that passed the high-water mark and is not back at the low-water mark within
 *   `wsStallTimeoutMs` (a consumer draining less than high - low bytes in that time), or passes
 *   `wsBufferCapBytes` (at once, also where the source cannot be paused), is *stalled*: the
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
import type { Heartbeat } from './heartbeat.ts';
import type { RelayLimits } from './limits.ts';
import type { RelaySocket } from './socket.ts';

/** The first read-back after a pause, ms (then doubling up to `wsFlowPollMs`). */
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

/** What every direction shares: relay-wide, one object for the whole relay. */
export interface FlowShared {
  limits: RelayLimits;
  counters: Counters;
  now(): number;
}

/** The memory accountant's pressure, when there is one (a field read per frame). */
export interface FlowPressure {
  readonly pressed: boolean;
  readonly pressureHighWaterBytes: number;
}

/** The socket a direction belongs to (it implements this: no closures per direction). */
export interface FlowOwner {
  /** Called once when `direction`'s sink stalled; the owner closes the socket. */
  flowStalled(direction: FlowDirection, cause: StallCause): void;
  /**
   * Every reading of `direction`'s sink's unsent bytes (after each write and each read-back),
   * when the direction was built with `measured`.
   */
  flowMeasured(direction: FlowDirection, bytes: number): void;
}

/** One direction's flow control: call {@link written} after every write to the sink. */
export class FlowDirection {
  #source: FlowSource;
  #sink: FlowSink;
  #limits: RelayLimits;
  #counters: Counters;
  #now: () => number;
  #timers: SocketTimers;
  /** The timer slot of this direction's poll. */
  #pollTimer: TimerName;
  #owner: FlowOwner;
  #memory: FlowPressure | null;
  #measured: boolean;
  #pausedAt = -1;
  #pollMs = 1;
  #over = false;

  /**
   * Binds a source and a sink of one socket (its timers, this direction's poll slot, its owner
   * told of stalls and, with `measured`, of every reading); nothing is paused yet.
   */
  constructor(
    source: FlowSource,
    sink: FlowSink,
    shared: FlowShared,
    timers: SocketTimers,
    pollTimer: TimerName,
    owner: FlowOwner,
    memory: FlowPressure | null,
    measured: boolean,
  ) {
    this.#source = source;
    this.#sink = sink;
    this.#limits = shared.limits;
    this.#counters = shared.counters;
    this.#now = shared.now;
    this.#timers = timers;
    this.#pollTimer = pollTimer;
    this.#owner = owner;
    this.#memory = memory;
    this.#measured = measured;
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
    const queued = this.#sink.bufferedAmount();
    if (this.#measured) this.#owner.flowMeasured(this, queued);
    if (queued <= this.#limits.wsHighWaterBytes && !(this.#memory?.pressed && queued > 0)) return;
    if (queued <= this.#highWater()) return;
    if (queued > this.#limits.wsBufferCapBytes) return this.#stall('cap');
    if (this.#pausedAt < 0) this.#pause();
  }

  /** Gives back the paused count and the poll timer (socket end); idempotent. */
  stop(): void {
    this.#over = true;
    if (this.#pausedAt < 0) return;
    this.#pausedAt = -1;
    this.#counters.pausedLegs--;
    this.#timers.clear(this.#pollTimer);
  }

  /** The high-water mark now: the lower one while the process is under memory pressure. */
  #highWater(): number {
    const limits = this.#limits, memory = this.#memory;
    return memory?.pressed
      ? Math.min(memory.pressureHighWaterBytes, limits.wsHighWaterBytes)
      : limits.wsHighWaterBytes;
  }

  /** The low-water mark now: never above the high-water mark now. */
  #lowWater(): number {
    return Math.min(this.#limits.wsLowWaterBytes, this.#highWater());
  }

  #pause(): void {
    this.#pausedAt = this.#now();
    this.#counters.pausedLegs++;
    this.#source.pause?.();
    this.#pollMs = Math.min(FIRST_POLL_MS, this.#limits.wsFlowPollMs);
    this.#timers.once(this.#pollTimer, this.#pollMs, FlowDirection.#pollOf, this);
  }

  /** The poll timer of `direction` ran (one function for every direction: no closure). */
  static #pollOf(direction: FlowDirection): void {
    direction.#poll();
  }

  #poll(): void {
    const limits = this.#limits;
    const queued = this.#sink.bufferedAmount();
    if (this.#measured) this.#owner.flowMeasured(this, queued);
    if (queued > limits.wsBufferCapBytes) return this.#stall('cap');
    if (queued <= this.#lowWater()) return this.#resume();
    if (this.#now() - this.#pausedAt >= limits.wsStallTimeoutMs) return this.#stall('timeout');
    this.#pollMs = Math.min(this.#pollMs * 2, limits.wsFlowPollMs);
    this.#timers.once(this.#pollTimer, this.#pollMs, FlowDirection.#pollOf, this);
  }

  #resume(): void {
    this.#pausedAt = -1;
    this.#counters.pausedLegs--;
    this.#timers.clear(this.#pollTimer);
    this.#source.resume?.();
  }

  #stall(cause: StallCause): void {
    this.stop();
    this.#owner.flowStalled(this, cause);
  }
}

/**
 * The browser leg read by the upstream direction's flow control: pausing it also suspends its
 * heartbeat's pong wait (the pong could not be read), reading it again counts as hearing from it.
 */
export class BrowserSource implements FlowSource {
  #browser: RelaySocket;
  #beat: Heartbeat | null;

  /** The browser's socket and its heartbeat (null where the transport has none). */
  constructor(browser: RelaySocket, beat: Heartbeat | null) {
    this.#browser = browser;
    this.#beat = beat;
  }

  pause(): void {
    this.#browser.pause?.();
    if (this.#browser.pause) this.#beat?.suspend();
  }

  resume(): void {
    this.#browser.resume?.();
    this.#beat?.alive();
  }
}

/** The two directions of one socket: upstream to browser (`down`), browser to upstream (`up`). */
export interface FlowPair {
  down: FlowDirection;
  up: FlowDirection;
}

/**
 * Flow control both ways for one socket: a browser slow to read pauses the upstream leg; an
 * upstream slow to read pauses the browser where its transport can (`ws`), else the browser's
 * frames wait in the leg's buffer up to the same bounds. Past them the owner closes 1013.
 */
export function startFlowPair(
  browser: RelaySocket,
  browserBeat: Heartbeat | null,
  leg: FlowSource & FlowSink,
  shared: FlowShared,
  timers: SocketTimers,
  owner: FlowOwner,
  memory: FlowPressure | null,
  measured: boolean,
): FlowPair {
  return {
    down: new FlowDirection(leg, browser, shared, timers, 'upstreamFlow', owner, memory, measured),
    up: new FlowDirection(
      new BrowserSource(browser, browserBeat),
      leg,
      shared,
      timers,
      'browserFlow',
      owner,
      memory,
      measured,
    ),
  };
}
