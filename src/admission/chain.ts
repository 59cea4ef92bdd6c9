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

/** Runs the steps in order; the first refusal wins. */
export async function runSteps<S>(steps: readonly Step<S>[], state: S): Promise<Refusal | null> {
  for (const step of steps) {
    const refused = await step.run(state);
    if (refused) return refused;
  }
  return null;
}
