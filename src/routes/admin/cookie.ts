/**
 * The svc_admin cookie: SPEC "Admin panel: /svc/admin" (first paragraph), "Authentication" 4,
 * "Other records" (admin session cookie, admin request header) and the cookie row of "Ceilings".
 *
 * - Signing key: HKDF-SHA-256 over ADMIN_PASSWORD with the deployment's salt (ADMIN_COOKIE_SALT,
 *   else the first 32 hex characters of sha256 over the token and the backend URL, resolved in
 *   src/config/resolve.ts). Changing the password or the salt changes the key, so every live
 *   cookie stops verifying.
 * - Value: a compact JWS (HS256, jose) with `aud: 'svc-admin'`, `iat` and `exp` (2 hours).
 * - Attributes: `Path=/; HttpOnly; SameSite=Strict`, plus `Secure` except on plain-http loopback.
 *
 * The password and the key are never logged or answered; only the signed value travels.
 */
import { createHash } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { DEFAULTS } from '../../config/defaults.ts';
import { isLoopbackName } from '../../http/host_origin.ts';

/** The cookie's name (SPEC "Other records"). */
export const ADMIN_COOKIE = 'svc_admin';
/** The header every call but POST /session must carry beside the cookie (any non-empty value). */
export const ADMIN_HEADER = 'x-svc-admin';

const AUDIENCE = 'svc-admin';
const KEY_INFO = 'svc_admin cookie signing key v1';
/** A cookie value longer than this is not looked at (a signed value is ~150 bytes). */
const MAX_COOKIE_VALUE = 1024;

/** The panel's secrets as the configuration holds them. */
export interface AdminSecrets {
  password: string;
  cookieSalt: string;
}

const keys = new Map<string, Promise<Uint8Array>>();

/**
 * The 32-byte HS256 key for `secrets`: HKDF-SHA-256(password, salt, info). Memoised per
 * (password, salt) pair in this process, keyed by a sha256 of the pair (the map holds no
 * password).
 */
export function signingKey(secrets: AdminSecrets): Promise<Uint8Array> {
  const id = createHash('sha256')
    .update(`${secrets.cookieSalt.length}:${secrets.cookieSalt}:${secrets.password}`)
    .digest('hex');
  let key = keys.get(id);
  if (!key) {
    key = deriveKey(secrets);
    keys.set(id, key);
  }
  return key;
}

async function deriveKey({ password, cookieSalt }: AdminSecrets): Promise<Uint8Array> {
  const encoder = new TextEncoder();
  const material = await crypto.subtle.importKey(
    'raw',
    encoder.encode(password),
    'HKDF',
    false,
    ['deriveBits'],
  );
  const bits = await crypto.subtle.deriveBits(
    {
      name: 'HKDF',
      hash: 'SHA-256',
      salt: encoder.encode(cookieSalt),
      info: encoder.encode(KEY_INFO),
    },
    material,
    256,
  );
  return new Uint8Array(bits);
}

/** A freshly signed cookie value and its expiry (ms since the epoch). */
export async function signAdminCookie(
  secrets: AdminSecrets,
  now = Date.now(),
  lifetimeMs: number = DEFAULTS.adminCookieLifetimeMs,
): Promise<{ value: string; expiresAt: number }> {
  const issuedAt = Math.floor(now / 1000);
  const expiresAt = (issuedAt * 1000) + lifetimeMs;
  const value = await new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setAudience(AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(Math.floor(expiresAt / 1000))
    .sign(await signingKey(secrets));
  return { value, expiresAt };
}

/**
 * The expiry (ms since the epoch) of a cookie value that verifies under `secrets` at `now`, or
 * null: bad signature, other key (password or salt changed, another deployment), expired,
 * wrong audience, not a JWS, or longer than 1 KiB.
 */
export async function verifyAdminCookie(
  secrets: AdminSecrets,
  value: string,
  now = Date.now(),
): Promise<number | null> {
  if (value.length === 0 || value.length > MAX_COOKIE_VALUE) return null;
  try {
    const { payload } = await jwtVerify(value, await signingKey(secrets), {
      algorithms: ['HS256'],
      audience: AUDIENCE,
      currentDate: new Date(now),
      clockTolerance: 0,
      requiredClaims: ['exp', 'iat'],
    });
    return typeof payload.exp === 'number' ? payload.exp * 1000 : null;
  } catch {
    return null;
  }
}

/** Every svc_admin value of a Cookie header (at most 4 looked at), in order. */
export function adminCookieValues(cookieHeader: string | null): string[] {
  if (cookieHeader === null) return [];
  const values: string[] = [];
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1 || part.slice(0, eq).trim() !== ADMIN_COOKIE) continue;
    values.push(part.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1'));
    if (values.length === 4) break;
  }
  return values;
}

/**
 * Whether the request arrived over plain http on a loopback name (localhost, 127.x, [::1]):
 * the one case where the cookie goes without `Secure`, since a browser would drop a Secure
 * cookie set over http.
 */
export function isPlainHttpLoopback(request: Request): boolean {
  const url = new URL(request.url);
  const host = request.headers.get('host') ?? url.host;
  return url.protocol === 'http:' && isLoopbackName(host);
}

function attributes(request: Request): string {
  return `Path=/; HttpOnly; SameSite=Strict${isPlainHttpLoopback(request) ? '' : '; Secure'}`;
}

/** The Set-Cookie value that opens a session (Max-Age in seconds). */
export function setCookieHeader(request: Request, value: string, lifetimeMs: number): string {
  return `${ADMIN_COOKIE}=${value}; Max-Age=${Math.floor(lifetimeMs / 1000)}; ${
    attributes(request)
  }`;
}

/** The Set-Cookie value that signs out: an empty, already expired cookie. */
export function clearCookieHeader(request: Request): string {
  return `${ADMIN_COOKIE}=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; ${
    attributes(request)
  }`;
}
