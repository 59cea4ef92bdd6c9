/**
 * The admin session check for a Request: SPEC "Admin panel: /svc/admin" ("All paths except POST
 * /session need a valid svc_admin cookie and an x-svc-admin header") and "Authentication" 4 and 6
 * (publishing's register requires the admin cookie and header).
 *
 * ```ts
 * import { checkAdminSession } from '../admin/session_check.ts';
 * const refused = await checkAdminSession(core.config, request);
 * if (refused) return refusalResponse(refused);   // 401 AdminSessionRequired / 500 AdminMisconfigured
 * ```
 *
 * It checks the session only: host, origin (same-origin only under the admin prefix) and body
 * ceilings are the caller's.
 */
import type { ResolvedConfig } from '../../config/resolved.ts';
import { type Refusal, refusal } from '../../http/error_codes.ts';
import { ADMIN_HEADER, adminCookieValues, type AdminSecrets, verifyAdminCookie } from './cookie.ts';

/** 401 AdminSessionRequired. */
export function adminSessionRequired(): Refusal {
  return refusal(
    'AdminSessionRequired',
    'Unlock the admin panel first: this call needs the svc_admin cookie and the x-svc-admin header',
  );
}

/** 500 AdminMisconfigured (ADMIN_PASSWORD shorter than 16 characters). */
export function adminMisconfigured(): Refusal {
  return refusal(
    'AdminMisconfigured',
    'The admin panel is misconfigured: ADMIN_PASSWORD must be at least 16 characters',
  );
}

/** The panel's secrets when it is on, else null. */
export function adminSecrets(config: ResolvedConfig): AdminSecrets | null {
  const { state, password, cookieSalt } = config.admin;
  return state === 'on' && password ? { password, cookieSalt } : null;
}

/**
 * The verified session's expiry (ms since the epoch), or the refusal:
 * - panel misconfigured: 500 AdminMisconfigured;
 * - panel off, no x-svc-admin header (or an empty one), no svc_admin cookie, or no cookie value
 *   verifying under this deployment's key (forged, tampered, expired, other password, other
 *   salt, other deployment): 401 AdminSessionRequired.
 */
export async function readAdminSession(
  config: ResolvedConfig,
  request: Request,
  now = Date.now(),
): Promise<{ expiresAt: number } | { refused: Refusal }> {
  if (config.admin.state === 'misconfigured') return { refused: adminMisconfigured() };
  const secrets = adminSecrets(config);
  if (secrets === null) return { refused: adminSessionRequired() };
  const header = request.headers.get(ADMIN_HEADER);
  if (header === null || header.trim() === '') return { refused: adminSessionRequired() };
  for (const value of adminCookieValues(request.headers.get('cookie'))) {
    const expiresAt = await verifyAdminCookie(secrets, value, now);
    if (expiresAt !== null) return { expiresAt };
  }
  return { refused: adminSessionRequired() };
}

/** null when the request carries a valid admin session (cookie + header), else the refusal. */
export async function checkAdminSession(
  config: ResolvedConfig,
  request: Request,
): Promise<Refusal | null> {
  const outcome = await readAdminSession(config, request);
  return 'refused' in outcome ? outcome.refused : null;
}
