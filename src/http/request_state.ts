/**
 * The state one HTTP request carries from the door (src/door.ts) through the checks and its
 * route: what it holds in the memory budget (src/memory/requests.ts; docs/operations.md "Memory")
 * and the body a host read ahead before handing the request in (src/http/preread.ts). Created once
 * per request by the proxy, handed to every reader of the body (src/http/body.ts, the REST
 * forward), the GraphQL chain's memory step and the answer's charge; released in the door's
 * `finally`, however the request ended.
 */
import type { MemoryAccountant } from '../memory/accountant.ts';
import { RequestHold } from '../memory/requests.ts';
import type { ReadAhead, SvcRequest } from './request.ts';

/** One request's state: its memory hold (none with the budget off) and its read-ahead body. */
export class RequestState {
  /** The body the host read ahead; null when the request carries its own (or none). */
  readonly readAhead: ReadAhead | null;
  readonly #hold: RequestHold | null;

  constructor(memory: MemoryAccountant | null, readAhead: ReadAhead | null = null) {
    this.#hold = memory === null ? null : new RequestHold(memory);
    this.readAhead = readAhead;
  }

  /** Bytes the request holds in the memory budget now (0 with the budget off). */
  get held(): number {
    return this.#hold?.bytes ?? 0;
  }

  /** The request holds `bytes` more (negative: gives some back); nothing with the budget off. */
  charge(bytes: number): void {
    this.#hold?.charge(bytes);
  }

  /**
   * The request is to hold `bytes` more if they fit the budget (`RequestHold.reserve`): true
   * (charged until answered) or false (nothing charged: 503 ProxyBusy). True with the budget off.
   */
  reserve(bytes: number, admitted = false): boolean {
    return this.#hold === null || this.#hold.reserve(bytes, admitted);
  }

  /** The request was answered: what it held is released. Idempotent. */
  release(): void {
    this.#hold?.release();
  }

  /** The body as a stream: the request's own, or one over the bytes read ahead; null when none. */
  bodyOf(request: SvcRequest): ReadableStream<Uint8Array> | null {
    if (this.readAhead === null) return request.body;
    return new Blob([this.readAhead.bytes as Uint8Array<ArrayBuffer>]).stream();
  }
}

/** A state that counts nothing and carries no read-ahead body (a request outside the budget). */
export function untrackedState(): RequestState {
  return new RequestState(null);
}
