/**
 * The ordered queue of browser frames one socket holds.
 *
 * Implements SPEC "Events" 2 and the "Limits" rows "Frames held before upstream opens" (64
 * frames or 512 KiB) and "Frames held behind a shared-store lookup" (64): frames wait here, in
 * arrival order, until the upstream has acknowledged the relay's connection_init, and while a
 * subscribe check is pending. Overflow is a 4400 close, decided by the caller from the row.
 */
import { CLOSE, type CloseRow } from './close_codes.ts';
import type { Counters } from './counters.ts';
import type { BrowserMessage } from './frames.ts';
import type { RelayLimits } from './limits.ts';

/** A held frame and its size in bytes. */
export interface Held {
  message: BrowserMessage;
  bytes: number;
}

/** Why frames are being held: the upstream is not ready, or a subscribe check is pending. */
export type HoldPhase = 'beforeUpstream' | 'behindLookup';

/** Frames waiting on one socket, counted in `counters.heldFrames`. */
export class InboundQueue {
  #items: Held[] = [];
  #bytes = 0;
  #counters: Counters;
  #limits: RelayLimits;

  /** Binds the queue to the relay's counts and ceilings. */
  constructor(counters: Counters, limits: RelayLimits) {
    this.#counters = counters;
    this.#limits = limits;
  }

  /** Bytes of the frames held now. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Frames held now. */
  get length(): number {
    return this.#items.length;
  }

  /**
   * Appends a frame. Returns the close row when the ceiling of `phase` is passed (the frame
   * is still counted, the caller closes 4400 and calls `clear`), else null.
   */
  push(item: Held, phase: HoldPhase): CloseRow | null {
    this.#items.push(item);
    this.#bytes += item.bytes;
    this.#counters.heldFrames++;
    const l = this.#limits;
    if (phase === 'beforeUpstream') {
      const over = this.#items.length > l.heldFramesBeforeUpstream ||
        this.#bytes > l.heldBytesBeforeUpstream;
      return over ? CLOSE.heldBeforeUpstreamOverflow : null;
    }
    return this.#items.length > l.heldFramesBehindLookup ? CLOSE.heldBehindLookupOverflow : null;
  }

  /** Takes the oldest frame, or undefined when empty. */
  shift(): Held | undefined {
    const item = this.#items.shift();
    if (item) {
      this.#bytes -= item.bytes;
      this.#counters.heldFrames--;
    }
    return item;
  }

  /** Drops every held frame. */
  clear(): void {
    this.#counters.heldFrames -= this.#items.length;
    this.#items = [];
    this.#bytes = 0;
  }
}
