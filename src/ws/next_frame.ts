/**
 * The relay's fast path for the upstream's `next` frames: one validating pass over the frame's
 * text that re-serialises what it checked, without building the objects.
 *
 * Implements the route table's WS row ("every later frame is re-serialised") and SPEC "Events"
 * 1 for the one frame type a stream is made of, at the cost of a scan instead of
 * `JSON.parse` + `JSON.stringify` (docs/benchmarks.md, relay: the plain way cost the Node host
 * as much as everything else a relay does). The pass checks the whole text against the JSON
 * grammar (RFC 8259), and emits a fresh envelope `{"id":..,"type":"next","payload":{..}}` whose
 * payload holds only the execution result's fields (`data`, `hasNext`, `extensions`, in that
 * order, as `rebuildResult` writes them), each copied from text the pass has just validated.
 * Anything else at either level is dropped, as the object path drops it.
 *
 * It answers null (the caller then takes the object path, `parseUpstreamFrame`, which refuses or
 * rebuilds) for every frame it does not take whole:
 * - text that is not JSON, or nested deeper than {@link MAX_DEPTH};
 * - any type but `next`, a missing or empty id, a payload that is not an object;
 * - a payload carrying `errors` (their sentences are rewritten on objects, SPEC "Error
 *   envelope");
 * - an escape in a key or in the id or type, and a `\u` or `\/` escape anywhere: those are the
 *   escapes `JSON.stringify` would write differently, and the master token is cut out of the
 *   text that leaves (SPEC "Authentication"), so a token spelled with escapes must not pass as
 *   text that differs from what the browser decodes.
 * Duplicate keys: the last one wins, as with `JSON.parse`.
 */

/** Deepest nesting the pass follows (deeper frames take the object path). */
export const MAX_DEPTH = 128;

/** A `next` frame taken by the fast path. */
export interface FastNext {
  /** The subscription id (a non-empty string without escapes). */
  id: string;
  /** The re-serialised payload's JSON text: `{"data":..,"hasNext":..,"extensions":..}`. */
  payload: string;
}

/** Where one value lies in the text: [start, end). */
interface Span {
  start: number;
  end: number;
}

// a string's characters up to its end or an escape; control characters stop it (not JSON)
// deno-lint-ignore no-control-regex
const STRING_BODY = /[^"\\\u0000-\u001f]*/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/** The cursor value of a pass that gave the frame up. */
const GIVE_UP = -1;

/** One pass over one text; `at` is the cursor, every method answers the new cursor or GIVE_UP. */
class Scanner {
  text: string;
  /** The members of the top-level `payload` object (the last one, if repeated). */
  payload: Map<string, Span> | null = null;
  constructor(text: string) {
    this.text = text;
  }

  /** Skips JSON whitespace. */
  ws(at: number): number {
    const t = this.text;
    for (;;) {
      const c = t.charCodeAt(at);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return at;
      at++;
    }
  }

  /**
   * A string starting at its opening quote; answers the index after its closing quote.
   * `plain`: no escape at all (keys, id, type).
   */
  string(at: number, plain: boolean): number {
    const t = this.text;
    at++;
    for (;;) {
      STRING_BODY.lastIndex = at;
      STRING_BODY.test(t);
      at = STRING_BODY.lastIndex;
      const c = t.charCodeAt(at);
      if (c === 0x22) return at + 1;
      if (c !== 0x5c || plain) return GIVE_UP; // control character, end of text, or an escape
      const e = t.charCodeAt(at + 1);
      // " \ b f n r t: written back the same by JSON.stringify; \/ and \u are not (see above)
      if (
        e !== 0x22 && e !== 0x5c && e !== 0x62 && e !== 0x66 && e !== 0x6e && e !== 0x72 &&
        e !== 0x74
      ) return GIVE_UP;
      at += 2;
    }
  }

  /** Any JSON value at `at` (whitespace already skipped); answers the index after it. */
  value(at: number, depth: number): number {
    const t = this.text;
    const c = t.charCodeAt(at);
    if (c === 0x22) return this.string(at, false);
    if (c === 0x7b) return this.object(at, depth + 1, null);
    if (c === 0x5b) return this.array(at, depth + 1);
    if (c === 0x74) return t.startsWith('true', at) ? at + 4 : GIVE_UP;
    if (c === 0x66) return t.startsWith('false', at) ? at + 5 : GIVE_UP;
    if (c === 0x6e) return t.startsWith('null', at) ? at + 4 : GIVE_UP;
    NUMBER.lastIndex = at;
    return NUMBER.test(t) && NUMBER.lastIndex > at ? NUMBER.lastIndex : GIVE_UP;
  }

  array(at: number, depth: number): number {
    if (depth > MAX_DEPTH) return GIVE_UP;
    const t = this.text;
    at = this.ws(at + 1);
    if (t.charCodeAt(at) === 0x5d) return at + 1;
    for (;;) {
      at = this.value(at, depth);
      if (at < 0) return GIVE_UP;
      at = this.ws(at);
      const c = t.charCodeAt(at);
      if (c === 0x5d) return at + 1;
      if (c !== 0x2c) return GIVE_UP;
      at = this.ws(at + 1);
    }
  }

  /**
   * An object; `members` (given for the frame itself) receives the span of each member's value
   * by key (keys have no escapes; the last of a duplicate wins), and the members of its
   * `payload` object are collected into {@link payload} in the same pass.
   */
  object(at: number, depth: number, members: Map<string, Span> | null): number {
    if (depth > MAX_DEPTH) return GIVE_UP;
    const t = this.text;
    at = this.ws(at + 1);
    if (t.charCodeAt(at) === 0x7d) return at + 1;
    for (;;) {
      if (t.charCodeAt(at) !== 0x22) return GIVE_UP;
      const keyEnd = this.string(at, true);
      if (keyEnd < 0) return GIVE_UP;
      const keyStart = at + 1;
      at = this.ws(keyEnd);
      if (t.charCodeAt(at) !== 0x3a) return GIVE_UP;
      at = this.ws(at + 1);
      const start = at;
      if (members === null) at = this.value(at, depth);
      else {
        const key = t.slice(keyStart, keyEnd - 1);
        if (depth === 1 && key === 'payload' && t.charCodeAt(at) === 0x7b) {
          const fields = new Map<string, Span>();
          at = this.object(at, depth + 1, fields);
          this.payload = fields;
        } else {
          at = this.value(at, depth);
          if (depth === 1 && key === 'payload') this.payload = null;
        }
        members.set(key, { start, end: at });
      }
      if (at < 0) return GIVE_UP;
      at = this.ws(at);
      const c = t.charCodeAt(at);
      if (c === 0x7d) return at + 1;
      if (c !== 0x2c) return GIVE_UP;
      at = this.ws(at + 1);
    }
  }
}

/** The result fields that travel, in the order the object path writes them (no `errors`). */
const RESULT_FIELDS = ['data', 'hasNext', 'extensions'] as const;

/**
 * Takes an upstream frame through the fast path: the id and the re-serialised payload of a
 * valid `next` frame, or null when the object path must decide (see the module comment).
 */
export function scanNext(text: string): FastNext | null {
  const s = new Scanner(text);
  const top = new Map<string, Span>();
  let at = s.ws(0);
  if (text.charCodeAt(at) !== 0x7b) return null;
  at = s.object(at, 1, top);
  if (at < 0 || s.ws(at) !== text.length) return null;
  const type = top.get('type');
  const id = top.get('id');
  const payload = top.get('payload');
  if (!type || !id || !payload) return null;
  if (text.slice(type.start, type.end) !== '"next"') return null;
  if (text.charCodeAt(id.start) !== 0x22 || id.end - id.start < 3) return null;
  if (s.string(id.start, true) !== id.end) return null; // an id with an escape
  const fields = s.payload;
  if (fields === null || fields.has('errors')) return null;
  let out = '{';
  for (const key of RESULT_FIELDS) {
    const span = fields.get(key);
    if (!span) continue;
    if (out.length > 1) out += ',';
    out += `"${key}":${text.slice(span.start, span.end)}`;
  }
  return { id: text.slice(id.start + 1, id.end - 1), payload: `${out}}` };
}
