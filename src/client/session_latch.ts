/**
 * The session-lapse latch: SPEC "Client library error classes": "onSessionError fires once per
 * lapse and re-arms on the next clean result". One latch per client (`createSvcClient`), shared
 * by every route helper built from that client (`createAuthRoutes({client})`, ...); a route
 * helper built without a client has one of its own.
 */
import type { SvcSessionError } from './errors.ts';

/** One lapse at a time: the first session refusal calls onSessionError, a clean result re-arms. */
export interface SvcSessionLatch {
  /** A session refusal: calls onSessionError unless this lapse already did. */
  lapse(error: SvcSessionError): void;
  /** A clean result: the next session refusal starts a new lapse. */
  clean(): void;
}

/** A latch around `onSessionError` (absent: the latch only keeps its state). */
export function createSessionLatch(
  onSessionError?: (error: SvcSessionError) => void,
): SvcSessionLatch {
  let lapsed = false;
  return {
    lapse(error) {
      if (lapsed) return;
      lapsed = true;
      onSessionError?.(error);
    },
    clean() {
      lapsed = false;
    },
  };
}
