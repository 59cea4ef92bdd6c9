/**
 * What HTTP requests hold, for the memory accountant (docs/operations.md "Memory"): a request
 * the proxy tracks reserves what its body will hold from the body's first byte (src/http/body.ts:
 * the bytes, their text, the parsed and forwarded forms, at the defaults table's measured bytes
 * per byte), its GraphQL documents before they are parsed (src/admission/memory_steps.ts), and is
 * charged the upstream answer it holds while it is rewritten; everything it was charged is
 * released once it is answered, whichever way it ends (the proxy's `finally`).
 */
import type { MemoryAccountant } from './accountant.ts';

interface Charged {
  memory: MemoryAccountant;
  bytes: number;
}

const tracked = new WeakMap<object, Charged>();

/** Starts counting what `request` holds in `memory`. */
export function trackRequest(request: object, memory: MemoryAccountant): void {
  tracked.set(request, { memory, bytes: 0 });
}

/** `request` holds `bytes` more (a negative number gives some back); untracked: nothing. */
export function chargeRequest(request: object | null | undefined, bytes: number): void {
  if (!request || bytes === 0) return;
  const charged = tracked.get(request);
  if (!charged) return;
  const delta = Math.max(bytes, -charged.bytes);
  charged.bytes += delta;
  if (delta > 0) charged.memory.charge(delta);
  else charged.memory.release(-delta);
}

/**
 * `request` is to hold `bytes` more, admitted only while the count with them fits the budget
 * ({@link MemoryAccountant.reserve}; `admitted`: a later form of a request whose body was already
 * admitted): true (and charged until the request is answered), or false (nothing charged: the
 * caller answers 503 ProxyBusy). Untracked: true.
 */
export function reserveRequest(
  request: object | null | undefined,
  bytes: number,
  admitted = false,
): boolean {
  if (!request || bytes <= 0) return true;
  const charged = tracked.get(request);
  if (!charged) return true;
  if (!charged.memory.reserve(bytes, admitted)) return false;
  charged.bytes += bytes;
  return true;
}

/** `request` was answered: everything it was charged is released. Idempotent. */
export function releaseRequest(request: object): void {
  const charged = tracked.get(request);
  if (!charged) return;
  tracked.delete(request);
  charged.memory.release(charged.bytes);
}
