/**
 * Types of what the harness page puts on `globalThis`, for the callbacks the tests pass to
 * `page.evaluate` (they run in the page and read the page's globals).
 */
import type * as svcModule from '../../src/client/mod.ts';
import type { SvcTest } from './harness.ts';

/** The page's globals. */
export interface HarnessGlobals {
  svc: typeof svcModule;
  svcTest: SvcTest;
}

/**
 * The page's globals, typed. Callbacks passed to `page.evaluate` are serialised, so inside them
 * this name is the harness page's own `globalThis.pageGlobals` (harness.ts), not this one.
 */
export const pageGlobals = (): HarnessGlobals => globalThis as unknown as HarnessGlobals;

export type { CallResult, ErrorFacts, SocketLog } from './harness.ts';
