/**
 * /svc/admin/session: POST unlocks (password → svc_admin cookie), GET reads the session, DELETE
 * signs out. SPEC "Admin panel: /svc/admin" and "Authentication" 4.
 *
 * POST order: body over 4 KiB → 413 AdminBodyTooLarge (before any credential check); the fixed
 * pause (every attempt: right, wrong, malformed or throttled alike); the throttle (429 AdminThrottled, retry-after in seconds); the password compared in
 * constant time (both sides hashed first) → 401 AdminBadPassword, or 200 with the cookie. A body
 * without a string `password` is a wrong password. The password is never logged or answered.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { DEFAULTS } from '../../config/defaults.ts';
import { bodyTooLarge, ok, readJsonBody, refuse } from './answers.ts';
import type { AdminRequest } from './context.ts';
import { clearCookieHeader, setCookieHeader, signAdminCookie } from './cookie.ts';
import { adminSecrets } from './session_check.ts';
import { throttleKey } from './throttle.ts';
import type { AdminSessionAnswer } from './types.ts';

function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** POST /session {password}. */
export async function unlock({ ctx, request, state, conn }: AdminRequest): Promise<Response> {
  const { config } = ctx.core;
  const body = await readJsonBody({ ctx, request, state }, DEFAULTS.adminSessionBodyBytes);
  if ('refused' in body && body.refused.status === 413) {
    return bodyTooLarge(DEFAULTS.adminSessionBodyBytes);
  }
  await ctx.pause(config.admin.throttle.pauseMs);
  const key = throttleKey(request, conn?.remoteAddress, config.trustForwardedFor);
  const waitMs = await ctx.throttle.take(key);
  if (waitMs > 0) {
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    return refuse('AdminThrottled', `Too many attempts; try again in ${seconds} s`, {
      'retry-after': String(seconds),
    });
  }
  const secrets = adminSecrets(config)!;
  const value = 'value' in body ? (body.value as { password?: unknown } | undefined) : undefined;
  const password = typeof value?.password === 'string' ? value.password : null;
  if (password === null || !sameSecret(password, secrets.password)) {
    return refuse('AdminBadPassword', 'That is not the admin password');
  }
  await ctx.throttle.clear(key);
  const cookie = await signAdminCookie(secrets);
  const answer: AdminSessionAnswer = {
    unlocked: true,
    expiresAt: new Date(cookie.expiresAt).toISOString(),
  };
  return ok(answer, {
    'set-cookie': setCookieHeader(request, cookie.value, DEFAULTS.adminCookieLifetimeMs),
  });
}

/** GET /session (after the session check): when it ends. */
export function readSession(_: AdminRequest, expiresAt: number): Response {
  const answer: AdminSessionAnswer = {
    unlocked: true,
    expiresAt: new Date(expiresAt).toISOString(),
  };
  return ok(answer);
}

/** DELETE /session (after the session check): an expired cookie. */
export function signOut({ request }: AdminRequest): Response {
  const answer: AdminSessionAnswer = { unlocked: false, expiresAt: null };
  return ok(answer, { 'set-cookie': clearCookieHeader(request) });
}
