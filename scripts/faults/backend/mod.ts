/**
 * The backend faults of the fault suite (docs/operations.md "Faults", backend part), as the soak
 * runner and tests/faults/backend_*_test.ts use them: each a `Fault` (scripts/faults/fault.ts) that
 * runs one host as a process against a real PostgreSQL behind the PostgREST-compatible fixture,
 * with the fault proxy (fault_proxy.ts) in between.
 */
import type { Fault } from '../fault.ts';
import { gateFaults } from './gate.ts';
import { storeFaults } from './store.ts';
import { throttleFaults } from './throttle.ts';
import { provisionFaults } from './provision.ts';
import { postgresRestartFault } from './postgres_restart.ts';
import { schedulerFaults } from './scheduler.ts';

/** Every backend fault, in the order the soak table prints them. */
export const faults: Fault[] = [
  ...gateFaults,
  ...storeFaults,
  ...throttleFaults,
  ...provisionFaults,
  postgresRestartFault,
  ...schedulerFaults,
];
