/**
 * POST <authPath>/recovery-link {email} (SPEC "Recovery-link route"; "Authentication" 6): an
 * owner or admin has a password-reset link for a member ranking below them written to the
 * server log, never to the caller. svc_recovery_authorize decides (not_member, rank,
 * cross_tenant) and records the request; GoTrue's admin API makes the link, redirecting to
 * PUBLIC_URL.
 */
import { RECOVERY_UNLISTED_CODE } from '../../backend/hints.ts';
import { DEFAULTS } from '../../config/defaults.ts';
import {
  type Answer,
  type AuthRequest,
  callerJwt,
  callerRpc,
  fromDatabase,
  ok,
  readJsonObject,
  refuse,
} from './context.ts';
import type { RecoveryLinkAnswer } from './types.ts';

/**
 * POST recovery-link. The caller is checked before anything of the route's settings is said (the
 * order of SPEC "Recovery-link route"'s table): no session or no workspace row 401
 * AuthSessionRequired, neither owner nor admin 403 NotEnoughPermissions; then 501
 * RecoveryLinkNotEnabled, 409 ProxyPublicUrlMissing, 400 InvalidRequest, and the target's rules.
 */
export async function recoveryLink(req: AuthRequest): Promise<Answer> {
  const { config } = req.ctx.core;
  const caller = callerJwt(req);
  if (!('jwt' in caller)) return caller;
  const checked = await callerRpc(req, caller.jwt, 'svc_recovery_caller_check', {});
  if (!ok(checked)) return fromDatabase(checked, RECOVERY_UNLISTED_CODE);
  if (!config.recoveryLinkLogging) {
    return refuse(
      'RecoveryLinkNotEnabled',
      'Recovery links are off: set AUTH_RECOVERY_LINK_LOG=1 to have them written to the server log',
    );
  }
  if (!config.publicUrl) {
    return refuse('ProxyPublicUrlMissing', 'PUBLIC_URL is not set: a recovery link needs it');
  }
  const body = await readJsonObject(req, false);
  if (!('value' in body)) return body;
  const email = body.value.email;
  if (Object.keys(body.value).length !== 1 || typeof email !== 'string' || !email.includes('@')) {
    return refuse('InvalidRequest', 'The body must be {email} with an email address');
  }
  const allowed = await callerRpc(req, caller.jwt, 'svc_recovery_authorize', {
    p_email: email.trim(),
  });
  if (!ok(allowed)) return fromDatabase(allowed, RECOVERY_UNLISTED_CODE);
  const target = (allowed.data as { email?: unknown })?.email;
  const made = await req.ctx.authAdmin.recoveryLink(
    typeof target === 'string' ? target : email.trim(),
    config.publicUrl,
    DEFAULTS.authRouteRpcTimeoutMs,
  );
  if ('failed' in made) {
    return refuse('RecoveryLinkFailed', 'The backend did not make a recovery link');
  }
  req.ctx.core.log(`svc-gateway: recovery link for ${target}: ${made.link}`);
  return { status: 200, body: { delivered: 'server-log' } satisfies RecoveryLinkAnswer };
}
