/**
 * The scheduler's credential (SPEC "Authentication" 5): the scheduler sends PUBLISHING_SECRET
 * itself as x-svc-publish-key (the database keeps it for that, written by POST /register), and
 * the callback compares the header with PUBLISHING_SECRET in constant time, both sides hashed
 * first (SHA-256), so neither the secret's length nor its first differing byte shows in the time
 * taken.
 */
import { timingSafeEqual } from 'node:crypto';

/** The callback's header (facts.json publishingPostRules.scheduler.callbackHeaderName). */
export const PUBLISH_KEY_HEADER = 'x-svc-publish-key';

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

/**
 * True when `header` (the x-svc-publish-key value, null when absent) is `secret`
 * (PUBLISHING_SECRET): SHA-256 of both UTF-8 texts compared with timingSafeEqual.
 */
export async function publishKeyMatches(header: string | null, secret: string): Promise<boolean> {
  const expected = await sha256(secret);
  const given = await sha256(header ?? '');
  return timingSafeEqual(expected, given) && header !== null;
}
