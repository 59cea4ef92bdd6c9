/**
 * The check chain as data: an ordered list of steps, each refusing or passing.
 * SPEC "Order in which a GraphQL body is checked" (first refusal wins).
 */
import type { Refusal } from '../http/error_codes.ts';

/** One row of the spec's check-order table. */
export interface Step<S> {
  /** The row number in the spec's table. */
  readonly step: number;
  /** The row's check, in the spec's words. */
  readonly check: string;
  /** A refusal, or null to pass on to the next step. */
  run(state: S): Refusal | null | Promise<Refusal | null>;
}

/**
 * Runs the steps in order; the first refusal wins. Synchronous while every
 * step answers synchronously (the socket relays such a subscribe at once,
 * without holding the frames behind it); a promise from the first step that
 * has to wait (a fence lookup, the backend), continuing from there. `refusedAt`
 * is told the row that refused (the metrics' step label).
 */
export function runSteps<S>(
  steps: readonly Step<S>[],
  state: S,
  from = 0,
  refusedAt?: (step: Step<S>) => void,
): Refusal | null | Promise<Refusal | null> {
  for (let i = from; i < steps.length; i++) {
    const result = steps[i].run(state);
    if (result instanceof Promise) {
      return result.then((refused) => {
        if (refused) refusedAt?.(steps[i]);
        return refused ?? runSteps(steps, state, i + 1, refusedAt);
      });
    }
    if (result) {
      refusedAt?.(steps[i]);
      return result;
    }
  }
  return null;
}
