/**
 * The gate on the socket: SPEC "Authentication" 3 (the gate reads authToken from the browser's
 * connection_init payload; the payload is never relayed), "WebSocket close codes" and the
 * tenant row of "Ceilings" (live sockets per tenant, close 4429).
 *
 * The relay calls {@link admitSocket} with the init payload; the verdict is either an admitted
 * session (carrying `release`, to be called once when the socket ends) or a close code and
 * reason:
 *
 * | Gate answer                                | Close                                          |
 * | ------------------------------------------ | ---------------------------------------------- |
 * | 401 (no/expired/foreign token, database)   | 4401 AuthSessionRequired                       |
 * | 403, or gate on with an empty bot set      | 4403 AuthTenantForbidden                       |
 * | 500 (exactly one backend variable set)     | 4500 ProxyAuthMisconfigured                    |
 * | 503 (backend unavailable, miss budget)     | 1013 ProxyAuthUnavailable                      |
 * | tenant at its socket ceiling               | 4429 Too many open sockets for this account    |
 */
import type { Core } from '../core.ts';
import type { ErrorCode } from '../http/error_codes.ts';
import { CLOSE, type CloseRow } from '../ws/close_codes.ts';
import type { Session } from './gate.ts';

/**
 * An admitted socket's session as the relay carries it (`AdmittedSession` of src/ws, with the
 * gate's session inside, as src/routes/socket.ts reads it for each subscribe).
 */
export interface SocketSession {
  /** The gate's session: bot set, expiry, tenant. */
  gate: Session;
  /** Session expiry, ms since the epoch: the socket ends there (close 1012). */
  expiresAt?: number;
  /** Frees the tenant's socket slot; the relay calls it once when the socket ends. */
  release(): void;
  /** Receives the function that ends this socket (the admin panel's revoke uses it). */
  onRevoke?(end: (code: number, reason: string) => void): void;
}

/** The verdict on one connection_init payload (the relay's `Admission` shape). */
export type SocketAdmission =
  | { ok: true; session: SocketSession }
  | { ok: false; closeCode: number; reason: string };

/** The close row for each refusal code the gate gives (SPEC "WebSocket close codes"). */
const CLOSE_FOR_CODE: Partial<Record<ErrorCode, CloseRow>> = {
  AuthSessionRequired: CLOSE.authSessionRequired,
  AuthTenantForbidden: CLOSE.authTenantForbidden,
  ProxyAuthMisconfigured: CLOSE.authMisconfigured,
  ProxyAuthUnavailable: CLOSE.authUnavailable,
};

/** Close code and reason for a refusal code of the gate (anything else: 4401 Unauthorized). */
export function closeFor(code: ErrorCode): { closeCode: number; reason: string } {
  const row = CLOSE_FOR_CODE[code] ?? CLOSE.unauthorized;
  return { closeCode: row.code, reason: row.reason };
}

/** `payload.authToken` when it is a string (the form `Bearer <jwt>`), else null. */
function authTokenOf(initPayload: unknown): string | null {
  if (typeof initPayload !== 'object' || initPayload === null) return null;
  const token = (initPayload as Record<string, unknown>).authToken;
  return typeof token === 'string' ? token : null;
}

/**
 * Admits a browser socket on its connection_init payload (any value; only `authToken` is
 * read). Gate off: everyone, counted against the deployment's tenant when a fence exists.
 * Never throws.
 */
export async function admitSocket(core: Core, initPayload: unknown): Promise<SocketAdmission> {
  const verdict = await core.gate.admit(authTokenOf(initPayload));
  if ('refused' in verdict) return { ok: false, ...closeFor(verdict.refused.code) };
  const session = verdict.session;
  if (core.gate.state === 'on' && session.botIds !== null && session.botIds.size === 0) {
    return { ok: false, ...closeFor('AuthTenantForbidden') };
  }
  const key = session.tenantKey ?? null;
  // Tracked before the slot is asked for: a shared table's slot waits on the backend, and a
  // revocation applied meanwhile must not miss this socket (it is refused 4401 below).
  const tracked = session.subject === undefined || session.botIds === null
    ? null
    : core.revocations.track(session.subject, session.botIds);
  let revoked: { closeCode: number; reason: string } | null = null;
  tracked?.onRevoke((closeCode, reason) => revoked = { closeCode, reason });
  let release: (() => void) | null;
  try {
    release = key === null ? () => {} : await core.tenants.openSocket(key);
  } catch (error) {
    tracked?.release();
    throw error;
  }
  if (release === null) {
    tracked?.release();
    const row = CLOSE.tooManyTenantSockets;
    return { ok: false, closeCode: row.code, reason: row.reason };
  }
  if (revoked !== null) {
    tracked?.release();
    release();
    return { ok: false, ...(revoked as { closeCode: number; reason: string }) };
  }
  if (tracked === null) {
    return { ok: true, session: { gate: session, expiresAt: session.expiresAt, release } };
  }
  const both = () => {
    tracked.release();
    release();
  };
  return {
    ok: true,
    session: {
      gate: session,
      expiresAt: session.expiresAt,
      release: both,
      // a revocation between this answer and the relay handing over its end: ended right after
      // the relay's admission step (not inside it, which goes on to open the upstream leg)
      onRevoke: (end) => {
        const early = revoked as { closeCode: number; reason: string } | null;
        if (early !== null) queueMicrotask(() => end(early.closeCode, early.reason));
        else tracked.onRevoke(end);
      },
    },
  };
}
