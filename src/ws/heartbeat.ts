/**
 * Dead-peer detection for one leg of the relay.
 *
 * Serves the "pings and pongs work on both legs; a dead upstream is noticed": on each
 * keepalive tick the leg is pinged; if nothing at all (no pong, no frame) came back by the
 * next tick, the leg is dead.
 */

/** One leg's keepalive state, driven by a periodic timer the owner holds. */
export class Heartbeat {
  #awaiting = false;
  #ping: () => boolean;
  #dead: () => void;

  /**
   * `ping` sends a ping and says whether one was sent (a leg that cannot ping yet is not
   * suspected); `dead` is called once the leg missed a whole period.
   */
  constructor(ping: () => boolean, dead: () => void) {
    this.#ping = ping;
    this.#dead = dead;
  }

  /** One keepalive period passed. */
  tick(): void {
    if (this.#awaiting) {
      this.#dead();
      return;
    }
    this.#awaiting = this.#ping();
  }

  /** Something (a pong or any frame) came from the leg. */
  alive(): void {
    this.#awaiting = false;
  }
}
