/**
 * Dead-peer detection for one leg of the relay (docs/operations.md "Slow and vanished peers on the
 * relay": a browser that vanishes without a close must not hold its socket and tenant slots for the
 * socket's life).
 *
 * A leg silent for `pingIntervalMs` (nothing received: no frame, no pong) is pinged; when
 * nothing at all comes back within `pongTimeoutMs` of that ping, the leg is dead. Hearing from
 * the leg costs a clock read; the timers are the socket's own ({@link SocketTimers}).
 */
import type { SocketTimers, TimerName } from './counters.ts';

/** What a heartbeat needs: its two timer slots, the periods, the clock and the leg's hooks. */
export interface HeartbeatOptions {
  timers: SocketTimers;
  /** Timer slot of the silence check, and of the pong wait. */
  names: { silence: TimerName; pong: TimerName };
  /** Silence before a ping (ms), and the wait for anything back after it (ms). */
  limits: { pingIntervalMs: number; pongTimeoutMs: number };
  now(): number;
  /** Sends a ping; false when the leg cannot ping yet (it is then not suspected). */
  ping(): boolean;
  /** Called once the leg missed its pong wait. */
  dead(): void;
}

/** One leg's keepalive; {@link start} arms it, {@link stop} (or the socket's clearAll) ends it. */
export class Heartbeat {
  #o: HeartbeatOptions;
  #lastHeard: number;
  #awaiting = false;

  /** Prepares the heartbeat; nothing is scheduled before {@link start}. */
  constructor(options: HeartbeatOptions) {
    this.#o = options;
    this.#lastHeard = options.now();
  }

  /** Starts watching for silence from now. */
  start(): void {
    this.#lastHeard = this.#o.now();
    this.#o.timers.once(this.#o.names.silence, this.#o.limits.pingIntervalMs, () => this.#check());
  }

  /** Something (a pong or any frame) came from the leg. */
  alive(): void {
    this.#lastHeard = this.#o.now();
    if (!this.#awaiting) return;
    this.#awaiting = false;
    this.#o.timers.clear(this.#o.names.pong);
  }

  /**
   * The leg stops being read (flow control's pause): a pong wait in progress is dropped, as the
   * pong could not be read; the owner's `ping` answers false until the leg is read again.
   */
  suspend(): void {
    if (!this.#awaiting) return;
    this.#awaiting = false;
    this.#o.timers.clear(this.#o.names.pong);
  }

  /** Stops both timers. */
  stop(): void {
    this.#o.timers.clear(this.#o.names.silence);
    this.#o.timers.clear(this.#o.names.pong);
  }

  #check(): void {
    const { timers, names, limits, now } = this.#o;
    const silentFor = now() - this.#lastHeard;
    if (silentFor < limits.pingIntervalMs) {
      timers.once(names.silence, limits.pingIntervalMs - silentFor, () => this.#check());
      return;
    }
    if (!this.#awaiting && this.#o.ping()) {
      this.#awaiting = true;
      timers.once(names.pong, limits.pongTimeoutMs, () => this.#o.dead());
    }
    timers.once(names.silence, limits.pingIntervalMs, () => this.#check());
  }
}
