/**
 * One relayed socket's memory account (docs/operations.md "Memory"): what the socket holds, as
 * the process's memory accountant (src/memory/) counts it. Its unsent bytes both ways (as flow
 * control last read them), its held browser frames ({@link HELD_COPIES} times their bytes) and
 * the upstream frame in hand while it is parsed and re-serialised ({@link IN_HAND_COPIES} times,
 * from {@link IN_HAND_MIN_BYTES} up). Only connection.ts builds one, and only with an accountant.
 */
import type { RelayMemory } from './types.ts';

type SocketAccount = ReturnType<RelayMemory['open']>;
type Sheddable = Parameters<RelayMemory['open']>[0];

/**
 * An upstream frame in hand is held about three times over while it is handled: its text, its
 * parsed form and its re-serialised text (frames.ts).
 */
export const IN_HAND_COPIES = 3;
/** Frames under this many bytes are not counted in hand: their copies are small next to a budget. */
export const IN_HAND_MIN_BYTES = 64 * 1024;
/**
 * A held browser frame counts three times its size: its parsed form, and the bytes and the text
 * it arrived as, which stay in the heap until the collector reaches them.
 */
export const HELD_COPIES = 3;

/**
 * The socket's memory account, told of an upstream frame in hand from IN_HAND_MIN_BYTES up
 * while it is parsed and re-serialised (bytes; 0 once handled).
 */
export interface InHandAccount {
  inHand(bytes: number): void;
}

/** The parts of one socket's account, in bytes, and the account they are reported to. */
export class SocketMemory implements InHandAccount {
  #account: SocketAccount;
  /** The inbound queue: its bytes are the browser frames held now. */
  #held: { readonly bytes: number };
  #unsentDown = 0;
  #unsentUp = 0;
  #inHand = 0;

  /** Opens the socket's account with `memory`; `held` is the socket's inbound queue. */
  constructor(memory: RelayMemory, socket: Sheddable, held: { readonly bytes: number }) {
    this.#account = memory.open(socket);
    this.#held = held;
  }

  /** Tells the accountant what the socket holds now. */
  report(): void {
    const held = this.#held.bytes * HELD_COPIES;
    this.#account.set(this.#unsentDown + this.#unsentUp + held + this.#inHand);
  }

  /** Flow control read the browser leg's unsent bytes. */
  measuredDown(bytes: number): void {
    if (bytes === this.#unsentDown) return;
    this.#unsentDown = bytes;
    this.report();
  }

  /** Flow control read the upstream leg's unsent bytes. */
  measuredUp(bytes: number): void {
    if (bytes === this.#unsentUp) return;
    this.#unsentUp = bytes;
    this.report();
  }

  /**
   * An upstream frame of `bytes` is in hand (0: handled); the leg calls it from
   * IN_HAND_MIN_BYTES up, before the frame is parsed, so one that takes the process past its
   * budget can shed this socket first.
   */
  inHand(bytes: number): void {
    this.#inHand = bytes * IN_HAND_COPIES;
    this.report();
  }

  /** The socket finished: its account is closed (nothing counted any more). */
  close(): void {
    this.#account.close();
  }
}
