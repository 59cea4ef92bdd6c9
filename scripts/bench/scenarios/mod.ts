/**
 * The scenario list of `deno task bench`, in run order. To add one: write a module beside this
 * file exporting a `Scenario` (see ../scenario.ts: it gets a BenchContext with the sandbox
 * process, `startGateway` and `measure`, and returns measurements and comparisons), then add it
 * here. `--only <name,...>` picks from this list.
 *
 * Planned, not written yet (each its own module):
 * - 'relay': messages per second through the WebSocket relay (graphql-ws client → gateway →
 *   sandbox socket), and memory per idle socket (the gateway's RSS from /proc/<pid>/status with N
 *   idle sockets open, minus without).
 */
import type { Scenario } from '../scenario.ts';
import { checksScenario } from './checks.ts';
import { gateScenario } from './gate.ts';
import { overheadScenario } from './overhead.ts';

/** Every scenario, in run order. */
export const SCENARIOS: readonly Scenario[] = [overheadScenario, checksScenario, gateScenario];
