/**
 * Deterministic id and number derivation for the sandbox upstream.
 *
 * Every value the sandbox invents is a function of a "seed" string (the bot, then the path of
 * field names below it), so the same query for the same bot gives the same answer in every run,
 * and two bots never share a resource id (their seeds differ in the bot id).
 */
import { createHash } from 'node:crypto';

/** SHA-1 of the seed (text or bytes), as 40 lowercase hex characters. */
export function digest(seed: string | Uint8Array): string {
  return createHash('sha1').update(seed).digest('hex');
}

/** A 24-hex lowercase id (the platform's id shape, `^[0-9a-f]{24}$`) derived from `seed`. */
export function hex24(seed: string): string {
  return digest(seed).slice(0, 24);
}

/** A non-negative 32-bit integer derived from `seed`. */
export function hashInt(seed: string): number {
  return parseInt(digest(seed).slice(0, 8), 16);
}

/**
 * Seed of the object at `path` below a bot, in the grammar the mock resolvers use:
 * `bot:<botId>` then `/<field>` per field and `.<index>` per list item.
 * `path` is written as in a JSON answer below `data.bot`: `'flowGroups.0'`, `'flowGroups[0]'`,
 * `'flowGroups.0.flows.1'`.
 */
export function botPathSeed(botId: string, path: string): string {
  let seed = `bot:${botId}`;
  for (const token of path.split(/[.[\]]+/).filter(Boolean)) {
    seed += /^\d+$/.test(token) ? `.${token}` : `/${token}`;
  }
  return seed;
}
