/**
 * The session gate seam: SPEC "Authentication" 2-3, step 2 of the check order.
 * With the gate off every caller is admitted without a session; a
 * misconfigured gate fails closed. The gate-on module plugs in here.
 */
import type { ResolvedConfig } from '../config/resolved.ts';
import { type Refusal, refusal } from '../http/error_codes.ts';
import { deploymentTenantKey } from './tenants.ts';

/** A caller admitted by the gate. */
export interface Session {
  /** The bots the caller may reach; null with the gate off (the bot fence decides). */
  botIds: ReadonlySet<string> | null;
  /** Session expiry, ms since the epoch (socket life ends there). */
  expiresAt?: number;
  /**
   * The tenant the caller counts against (SPEC "Ceilings": requests per minute, live sockets):
   * a hash of its bot set, the shared no-bot bucket, or the deployment with the gate off; null
   * (or absent) when there is no fence to key a tenant (allowedBotIds 'any').
   */
  tenantKey?: string | null;
  /** The account (the session token's sub) with the gate on; absent with the gate off. */
  subject?: string;
}

/** The gate's verdict for a bearer token (HTTP header or socket init payload). */
export type GateVerdict = { session: Session } | { refused: Refusal };

/** The gate. */
export interface Gate {
  readonly state: ResolvedConfig['auth']['state'];
  /** Admits or refuses the bearer token (`Bearer <jwt>` or null when absent). */
  admit(authorization: string | null): Promise<GateVerdict>;
  /** Drops every cached verdict of the account `subject` (the admin panel revoked a bot). */
  forget?(subject: string): void;
}

/** 500 ProxyAuthMisconfigured: exactly one backend variable set. */
export function authMisconfigured(): Refusal {
  return refusal(
    'ProxyAuthMisconfigured',
    'The session gate is misconfigured: set both CLIENT_BACKEND_URL and CLIENT_BACKEND_ANON_KEY, or neither',
  );
}

/**
 * The gate for a configuration whose gate is off or misconfigured. Gate off: every caller gets
 * the same open session (no bot set; the deployment's tenant). Misconfigured: 500
 * ProxyAuthMisconfigured for everyone.
 */
export function createGateOff(config: ResolvedConfig): Gate {
  const state = config.auth.state;
  const OPEN_SESSION: Session = Object.freeze({
    botIds: null,
    tenantKey: deploymentTenantKey(config),
  });
  return {
    state,
    admit: () =>
      Promise.resolve(
        state === 'off' ? { session: OPEN_SESSION } : { refused: authMisconfigured() },
      ),
  };
}
