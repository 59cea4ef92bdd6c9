/**
 * Dead-peer detection for one leg of the relay (docs/operations.md "Slow and vanished peers on the
 * relay": a browser that vanishes without a close must not hold its socket and tenant slots for the
 * socket's life).
 *
 * A leg silent for `wsPingIntervalMs` (nothing received: no frame, no pong) is pinged; when
 * nothing at all comes back within `wsPongTimeoutMs` of that ping, the leg is dead. Hearing from
 * the leg costs a clock read; the timers are the socket's own ({@link SocketTimers}).
 */
import type { SocketTimers, TimerName } from './counters.ts';

/** The leg a heartbeat watches (its owner implements it: no closures per socket). */
export interface HeartbeatPeer {
  /** Sends a ping; false when the leg cannot ping yet (it is then not suspected). */
  keepalivePing(): boolean;
  /** Called once the leg missed its pong wait. */
  keepaliveDead(): void;
}

/** A heartbeat's two timer slots: the silence check, and the pong wait. */
export interface HeartbeatSlots {
  silence: TimerName;
  pong: TimerName;
}

/** The periods: silence before a ping (ms), and the wait for anything back after it (ms). */
export interface HeartbeatLimits {
  wsPingIntervalMs: number;
  wsPongTimeoutMs: number;
}

/** One leg's keepalive; {@link start} arms it, {@link stop} (or the socket's clearAll) ends it. */
export class Heartbeat {
  #timers: SocketTimers;
  #slots: HeartbeatSlots;
  #limits: HeartbeatLimits;
  #now: () => number;
  #peer: HeartbeatPeer;
  #lastHeard: number;
  #awaiting = false;

  /** Prepares the heartbeat; nothing is scheduled before {@link start}. */
  constructor(
    timers: SocketTimers,
    slots: HeartbeatSlots,
    limits: HeartbeatLimits,
    now: () => number,
    peer: HeartbeatPeer,
  ) {
    this.#timers = timers;
    this.#slots = slots;
    this.#limits = limits;
    this.#now = now;
    this.#peer = peer;
    this.#lastHeard = now();
  }

  /** Starts watching for silence from now. */
  start(): void {
    this.#lastHeard = this.#now();
    this.#timers.once(this.#slots.silence, this.#limits.wsPingIntervalMs, Heartbeat.#checkOf, this);
  }

  /** Something (a pong or any frame) came from the leg. */
  alive(): void {
    this.#lastHeard = this.#now();
    if (!this.#awaiting) return;
    this.#awaiting = false;
    this.#timers.clear(this.#slots.pong);
  }

  /**
   * The leg stops being read (flow control's pause): a pong wait in progress is dropped, as the
   * pong could not be read; the owner's `keepalivePing` answers false until the leg is read again.
   */
  suspend(): void {
    if (!this.#awaiting) return;
    this.#awaiting = false;
    this.#timers.clear(this.#slots.pong);
  }

  /** Stops both timers. */
  stop(): void {
    this.#timers.clear(this.#slots.silence);
    this.#timers.clear(this.#slots.pong);
  }

  /** The silence timer of `beat` ran (one function for every heartbeat: no closure per timer). */
  static #checkOf(beat: Heartbeat): void {
    beat.#check();
  }

  /** The pong wait of `beat` ran out. */
  static #deadOf(beat: Heartbeat): void {
    beat.#peer.keepaliveDead();
  }

  #check(): void {
    const timers = this.#timers, slots = this.#slots, limits = this.#limits;
    const silentFor = this.#now() - this.#lastHeard;
    if (silentFor < limits.wsPingIntervalMs) {
      timers.once(slots.silence, limits.wsPingIntervalMs - silentFor, Heartbeat.#checkOf, this);
      return;
    }
    if (!this.#awaiting && this.#peer.keepalivePing()) {
      this.#awaiting = true;
      timers.once(slots.pong, limits.wsPongTimeoutMs, Heartbeat.#deadOf, this);
    }
    timers.once(slots.silence, limits.wsPingIntervalMs, Heartbeat.#checkOf, this);
  }
}
