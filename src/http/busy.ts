/**
 * The spec's busy answer, 503 ProxyBusy with retry-after (SPEC "Ceilings": past a ceiling of
 * requests in flight; docs/operations.md "Memory": past the memory budget).
 */
import { DEFAULTS } from '../config/defaults.ts';
import { type Refusal, refusal } from './error_codes.ts';

/**
 * 503 ProxyBusy with retry-after: 5, for a request that arrives while the process is past its
 * memory budget (docs/operations.md "Memory"; the spec's busy answer for a new cause).
 */
export function memoryBusy(): Refusal {
  return refusal('ProxyBusy', 'The gateway is short of memory; try again shortly', {
    'retry-after': String(DEFAULTS.busyRetryAfterSeconds),
  });
}

/** 503 ProxyBusy with retry-after: 5. */
export function busy(what: string): Refusal {
  return refusal('ProxyBusy', `Too many ${what} in flight; try again shortly`, {
    'retry-after': String(DEFAULTS.busyRetryAfterSeconds),
  });
}
