/**
 * What one HTTP request holds, for the memory accountant (docs/operations.md "Memory"): a request
 * the proxy tracks reserves what its body will hold from the body's first byte (src/http/body.ts:
 * the bytes, their text, the parsed and forwarded forms, at the defaults table's measured bytes
 * per byte), its GraphQL documents before they are parsed (src/admission/memory_steps.ts), and is
 * charged the upstream answer it holds while it is rewritten; everything it was charged is
 * released once it is answered, whichever way it ends (the door's `finally`, src/door.ts). The
 * hold lives on the request's state (src/http/request_state.ts), created at the door.
 */
import type { MemoryAccountant } from './accountant.ts';

/** The bytes one request holds in `memory`. */
export class RequestHold {
  readonly #memory: MemoryAccountant;
  #bytes = 0;
  #released = false;

  constructor(memory: MemoryAccountant) {
    this.#memory = memory;
  }

  /** Bytes charged now. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The request holds `bytes` more (a negative number gives some back, never below 0). */
  charge(bytes: number): void {
    if (bytes === 0 || this.#released) return;
    const delta = Math.max(bytes, -this.#bytes);
    this.#bytes += delta;
    if (delta > 0) this.#memory.charge(delta);
    else this.#memory.release(-delta);
  }

  /**
   * The request is to hold `bytes` more, admitted only while the count with them fits the budget
   * ({@link MemoryAccountant.reserve}; `admitted`: a later form of a request whose body was
   * already admitted): true (and charged until the request is answered), or false (nothing
   * charged: the caller answers 503 ProxyBusy).
   */
  reserve(bytes: number, admitted = false): boolean {
    if (bytes <= 0 || this.#released) return true;
    if (!this.#memory.reserve(bytes, admitted)) return false;
    this.#bytes += bytes;
    return true;
  }

  /**
   * The request was answered: everything it was charged is released, and the accountant told
   * even when that is nothing (the last request gone lets it settle). Idempotent; nothing is
   * counted after it.
   */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    const bytes = this.#bytes;
    this.#bytes = 0;
    this.#memory.release(bytes);
  }
}
