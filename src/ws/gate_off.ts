/**
 * The gate-off admission: what `RelayDeps.admit` is when the session gate is off.
 *
 * Implements SPEC "States and transitions" (session gate off) for the socket: every
 * connection_init is admitted; its payload is read by nobody and never relayed (SPEC
 * "Authentication" 3). With the gate on, the session module supplies its own `admit` with the
 * same signature (4401 AuthSessionRequired, 4403 AuthTenantForbidden, 1013, 4500, 4429 per
 * SPEC "WebSocket close codes"), and returns a session with `expiresAt`, `release`, `onRevoke`.
 */
import type { Admission } from './types.ts';

/** Admits every socket with an empty session (no expiry, nothing to release). */
export function admitWithoutGate(_initPayload: unknown): Promise<Admission> {
  return Promise.resolve({ ok: true, session: {} });
}
