/**
 * Header lines of a node request read from `rawHeaders` (every line as received, which node keeps
 * anyway): by name in ASCII case folding (RFC 9110 5.1), repeated lines joined with ", " as Web
 * Headers join them (Fetch "get a header"), or counted (RFC 9112 3.2: one Host line at most).
 * Nothing is built per request but the reader itself (node's `headersDistinct` builds an array
 * per header).
 */
import type { HeaderReader } from '../../src/host_api.ts';

/** Whether header name `key` is `lower` (lower-case) in ASCII case folding. */
function sameName(key: string, lower: string): boolean {
  if (key.length !== lower.length) return false;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if ((c >= 65 && c <= 90 ? c + 32 : c) !== lower.charCodeAt(i)) return false;
  }
  return true;
}

/** How many lines named `name` (lower-case) `raw` holds (node's `rawHeaders`: name, value, ...). */
export function headerLines(raw: readonly string[], name: string): number {
  let seen = 0;
  for (let i = 0; i < raw.length; i += 2) if (sameName(raw[i], name)) seen++;
  return seen;
}

/** Header values by name over node's `rawHeaders`, repeated lines joined with ", ". */
export class RawHeaders implements HeaderReader {
  readonly #raw: readonly string[];

  constructor(raw: readonly string[]) {
    this.#raw = raw;
  }

  get(name: string): string | null {
    const raw = this.#raw;
    const lower = name.toLowerCase();
    let value: string | null = null;
    for (let i = 0; i < raw.length; i += 2) {
      if (!sameName(raw[i], lower)) continue;
      value = value === null ? raw[i + 1] : `${value}, ${raw[i + 1]}`;
    }
    return value;
  }
}
