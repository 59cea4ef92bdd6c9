/**
 * What an upstream answer teaches the resource fence (SPEC "Resource binding states": an
 * answer to a request that named exactly one bot binds each id it carries to that bot; at
 * most 5,000 ids read per answer; facts `fenceMemory.answerIdPattern`: "a quoted 24-hex
 * string in the JSON text").
 *
 * Skipping the bot's own id and the ids the request itself carried is the fence's job.
 *
 * @module
 */
import { DEFAULTS } from '../config/defaults.ts';

/** The default and spec ceiling of ids read from one answer (the defaults table's). */
export const MAX_IDS_LEARNED_PER_ANSWER: number = DEFAULTS.resourceIdsLearnedPerAnswer;

const QUOTED_HEX24 = /"([0-9a-fA-F]{24})"/g;

/**
 * The distinct resource ids in an answer's JSON text, lowercased, in order of first
 * appearance, at most `max`. An id counts only as a whole JSON string: the opening quote
 * must not be an escaped quote inside another string (`\"`).
 */
export function idsInAnswer(text: string, max: number = MAX_IDS_LEARNED_PER_ANSWER): string[] {
  if (max <= 0) return [];
  QUOTED_HEX24.lastIndex = 0;
  let m = QUOTED_HEX24.exec(text);
  if (m === null) return []; // most answers (a subscription's frames): nothing to learn, no set
  const ids = new Set<string>();
  for (; m !== null; m = QUOTED_HEX24.exec(text)) {
    if (escaped(text, m.index)) {
      // Re-scan from the closing quote, which may open a real string.
      QUOTED_HEX24.lastIndex = m.index + 25;
      continue;
    }
    ids.add(m[1].toLowerCase());
    if (ids.size >= max) break;
  }
  return [...ids];
}

/** Whether the quote at `at` is preceded by an odd number of backslashes. */
function escaped(text: string, at: number): boolean {
  let n = 0;
  for (let i = at - 1; i >= 0 && text.charCodeAt(i) === 0x5c; i--) n++;
  return n % 2 === 1;
}
