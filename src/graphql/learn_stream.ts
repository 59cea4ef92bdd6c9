/**
 * {@link idsInAnswer} over an answer that arrives in chunks (a REST upload's piped answer, SPEC
 * "Resource binding states": an upstream answer to a request that named exactly one bot binds each
 * id it carries to that bot, at most 5,000 ids read per answer). The same reading as the text
 * scan, a quoted 24-hex string whose opening quote is not escaped, made byte by byte so an id cut
 * across two chunks is still read; it holds at most the ids found (`max`) and a few counters,
 * whatever the answer's length.
 *
 * @module
 */
import { MAX_IDS_LEARNED_PER_ANSWER } from './learn.ts';

/**
 * Reads the answer's bytes as they pass (as the upstream sent them): `push` for each chunk, then
 * `whole` once when the answer was read to its end (never for one cut, failed or cancelled).
 */
export interface AnswerReader {
  push(chunk: Uint8Array): void;
  whole(): void;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Whether `b` is an ASCII hex digit. */
function isHex(b: number): boolean {
  return (b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x66) || (b >= 0x41 && b <= 0x46);
}

/** Reads resource ids from the bytes of an answer, chunk by chunk. */
export class AnswerIdScanner {
  readonly #max: number;
  readonly #ids = new Set<string>();
  /** Backslashes just before the current byte (an odd run escapes a quote). */
  #backslashes = 0;
  /** Hex digits after an unescaped opening quote; -1 when no candidate is open. */
  #hex = -1;
  /** The candidate's digits (at most 24 bytes). */
  readonly #digits = new Uint8Array(24);

  /** `max`: ids kept at most (the spec's 5,000 by default). */
  constructor(max: number = MAX_IDS_LEARNED_PER_ANSWER) {
    this.#max = max;
  }

  /** Reads one chunk (not kept). */
  push(chunk: Uint8Array): void {
    if (this.#ids.size >= this.#max) return;
    for (let i = 0; i < chunk.length; i++) this.#byte(chunk[i]);
  }

  /** The distinct ids read, lowercased, in order of first appearance. */
  ids(): string[] {
    return [...this.#ids];
  }

  #byte(b: number): void {
    if (b === QUOTE) {
      if (this.#hex === 24) {
        if (this.#ids.size < this.#max) {
          this.#ids.add(String.fromCharCode(...this.#digits).toLowerCase());
        }
        this.#hex = -1; // a closing quote opens nothing
      } else {
        this.#hex = this.#backslashes % 2 === 0 ? 0 : -1;
      }
      this.#backslashes = 0;
      return;
    }
    this.#backslashes = b === BACKSLASH ? this.#backslashes + 1 : 0;
    if (this.#hex < 0) return;
    if (this.#hex < 24 && isHex(b)) this.#digits[this.#hex++] = b;
    else this.#hex = -1;
  }
}
