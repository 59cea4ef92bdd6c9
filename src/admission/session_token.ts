/**
 * The session token's fast refusal: SPEC "Authentication" 2 ("Refused with zero network calls:
 * missing bearer, expired unverified exp, or issuer other than this deployment's backend
 * project (401 AuthSessionRequired)") and "Other records" (session token: bearer JWT, exp read
 * unverified). The signature is the backend's to verify, on the svc_my_bot_ids call.
 */
import { createHash } from 'node:crypto';
import { decodeJwt } from 'jose';
import { type Refusal, refusal } from '../http/error_codes.ts';

/** A bearer token that passed the fast checks. */
export interface SessionToken {
  /** The raw JWT: passed to the backend call and dropped; never stored or logged. */
  jwt: string;
  /** sha256 of the JWT, hex: the cache key. */
  hash: string;
  /** The exp claim, ms since the epoch. */
  expiresAt: number;
  /** The sub claim (the account id) when a string; trusted once the backend accepted the token. */
  subject?: string;
}

/** 401 AuthSessionRequired with `why`. */
export function sessionRequired(why: string): Refusal {
  return refusal('AuthSessionRequired', why);
}

/** sha256 of a JWT, hex: the only form in which the gate keeps a token. */
export function tokenHash(jwt: string): string {
  return createHash('sha256').update(jwt).digest('hex');
}

/** The JWT of `Bearer <jwt>` (scheme in any case), or null. */
export function bearerOf(authorization: string | null): string | null {
  if (authorization === null) return null;
  const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match ? match[1] : null;
}

/**
 * Reads `authorization` without any network call: a refusal (401 AuthSessionRequired) for a
 * missing bearer, a token that is not a JWT or has no numeric exp, an exp at or before `now`
 * (ms), or an iss other than `issuer` (`<CLIENT_BACKEND_URL>/auth/v1`).
 */
export function readSessionToken(
  authorization: string | null,
  issuer: string,
  now: number,
): SessionToken | Refusal {
  const jwt = bearerOf(authorization);
  if (jwt === null) return sessionRequired('Sign in: this request needs a session token');
  let claims: { exp?: unknown; iss?: unknown; sub?: unknown };
  try {
    claims = decodeJwt(jwt);
  } catch {
    return sessionRequired('The session token is not readable; sign in again');
  }
  if (typeof claims.exp !== 'number' || !Number.isFinite(claims.exp)) {
    return sessionRequired('The session token carries no expiry; sign in again');
  }
  const expiresAt = claims.exp * 1000;
  if (expiresAt <= now) return sessionRequired('The session expired; sign in again');
  if (claims.iss !== issuer) {
    return sessionRequired('The session token was issued for another project; sign in again');
  }
  const token: SessionToken = { jwt, hash: tokenHash(jwt), expiresAt };
  if (typeof claims.sub === 'string') token.subject = claims.sub;
  return token;
}
