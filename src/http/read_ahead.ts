/**
 * Room in the memory budget for a body a host reads whole before the core sees the request
 * (src/http/preread.ts; docs/operations.md "Memory": counted from the first byte).
 */
import { JSON_BODY_PER_BYTE } from './body.ts';
import type { MemoryAccountant } from '../memory/accountant.ts';
import { RequestHold } from '../memory/requests.ts';

/**
 * Reserves room for a body of `declared` bytes at what a JSON body holds a byte: a release
 * function (idempotent; the host calls it once the answer is sent, however the request ended), or
 * null when it does not fit (the host then leaves the body to the core's read, which reserves or
 * refuses it after the checks before any route). With the budget off (`memory` null): a release
 * that does nothing.
 */
export function readAheadRoom(
  memory: MemoryAccountant | null,
  declared: number,
): (() => void) | null {
  if (memory === null) return () => {};
  const bytes = Math.max(0, declared) * JSON_BODY_PER_BYTE;
  // not counted as a refused request: the core's own read refuses it, or finds room
  if (!memory.fits(bytes)) return null;
  const hold = new RequestHold(memory);
  hold.charge(bytes);
  return () => hold.release();
}
