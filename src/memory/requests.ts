/**
 * What HTTP requests hold, for the memory accountant (docs/operations.md "Memory"): a request
 * the proxy tracks is charged the bodies it reads (src/http/body.ts) and the upstream answers it
 * holds while they are rewritten; everything it was charged is released once it is answered.
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

/** `request` was answered: everything it was charged is released. Idempotent. */
export function releaseRequest(request: object): void {
  const charged = tracked.get(request);
  if (!charged) return;
  tracked.delete(request);
  charged.memory.release(charged.bytes);
}
