/**
 * The scenario list of `deno task bench`, in run order. To add one: write a module beside this
 * file exporting a `Scenario` (see ../scenario.ts: it gets a BenchContext with the sandbox
 * process, `startGateway` and `measure`, and returns measurements and comparisons), then add it
 * here. `--only <name,...>` picks from this list.
 */
import type { Scenario } from '../scenario.ts';
import { checksScenario } from './checks.ts';
import { gateScenario } from './gate.ts';
import { longDocumentScenario } from './long_document.ts';
import { memoryScenario } from './memory.ts';
import { metricsScenario } from './metrics.ts';
import { overheadScenario } from './overhead.ts';
import { piecesScenario } from './pieces.ts';
import { relayScenario } from './relay.ts';
import { requestMemoryScenario } from './request_memory.ts';
import { targetsScenario } from './targets.ts';

/** Every scenario, in run order. */
export const SCENARIOS: readonly Scenario[] = [
  targetsScenario,
  overheadScenario,
  checksScenario,
  gateScenario,
  relayScenario,
  metricsScenario,
  memoryScenario,
  longDocumentScenario,
  requestMemoryScenario,
  piecesScenario,
];
