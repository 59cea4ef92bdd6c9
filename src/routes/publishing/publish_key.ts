/**
 * The scheduler's credential (SPEC "Authentication" 5): the database records a hash of
 * PUBLISHING_SECRET (the publish key, SHA-256 hex) and the scheduler sends it as
 * x-svc-publish-key, so the raw secret never enters the database. The callback compares the
 * header with the key in constant time, both sides hashed first.
 */
import { timingSafeEqual } from 'node:crypto';

/** The callback's header (facts.json publishingPostRules.scheduler.callbackHeaderName). */
export const PUBLISH_KEY_HEADER = 'x-svc-publish-key';

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

/** The publish key of `secret`: SHA-256 of its UTF-8 bytes, 64 lowercase hex characters. */
export async function publishKeyOf(secret: string): Promise<string> {
  return Array.from(await sha256(secret), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** True when `header` is the publish key of `secret` (constant time over the two hashes). */
export async function publishKeyMatches(header: string | null, secret: string): Promise<boolean> {
  const expected = await sha256(await publishKeyOf(secret));
  const given = await sha256(header ?? '');
  return timingSafeEqual(expected, given) && header !== null;
}
