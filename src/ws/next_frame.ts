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
 *   text that differs from what the browser decodes;
 * - a number that does not read back as the object path writes it (past the double's range,
 *   or -0).
 * Duplicate keys: the last one wins, as with `JSON.parse`.
 */

/** Deepest nesting the pass follows (deeper frames take the object path). */
export const MAX_DEPTH = 128;

/** A `next` frame taken by the fast path. */
export interface FastNext {
  /** The subscription id (a non-empty string without escapes). */
  id: string;
  /** The id's JSON text: the id in quotes (what `JSON.stringify(id)` writes, as it has no escape). */
  idJson: string;
  /** The re-serialised payload's JSON text: `{"data":..,"hasNext":..,"extensions":..}`. */
  payload: string;
}

/** The members the pass records, by slot: the frame's, then its payload's. */
const SLOT = { type: 0, id: 1, payload: 2, data: 3, hasNext: 4, extensions: 5, errors: 6 } as const;
const FRAME_KEYS = [['type', SLOT.type], ['id', SLOT.id], ['payload', SLOT.payload]] as const;
const PAYLOAD_KEYS = [
  ['data', SLOT.data],
  ['hasNext', SLOT.hasNext],
  ['extensions', SLOT.extensions],
  ['errors', SLOT.errors],
] as const;

// a string's characters up to its end or an escape; control characters stop it (not JSON)
// deno-lint-ignore no-control-regex
const STRING_BODY = /[^"\\\u0000-\u001f]*/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

/**
 * Whether the number text [start, end) reads back as `JSON.stringify` would write it: not past
 * the double's range (`1e400` reads as Infinity, the object path writes null) and not -0 (the
 * object path writes 0). Up to 15 characters without an exponent it cannot overflow.
 */
function plainNumber(t: string, start: number, end: number): boolean {
  let short = end - start <= 15;
  for (let i = start; short && i < end; i++) short = (t.charCodeAt(i) | 0x20) !== 0x65; // e, E
  if (short && t.charCodeAt(start) !== 0x2d) return true;
  if (short && t.charCodeAt(start + 1) !== 0x30) return true;
  const value = Number(t.slice(start, end));
  return Number.isFinite(value) && !Object.is(value, -0);
}

/** The cursor value of a pass that gave the frame up. */
const GIVE_UP = -1;

/**
 * One pass over one text; `at` is the cursor, every method answers the new cursor or GIVE_UP.
 * One scanner serves every frame (a pass is synchronous), so a frame allocates nothing but its
 * output.
 */
class Scanner {
  text = '';
  /** [start, end) of each recorded member's value by slot (-1: absent); the last key wins. */
  spans = new Int32Array(14);
  /** Whether the frame's (last) `payload` member is an object. */
  payloadObject = false;

  reset(text: string): void {
    this.text = text;
    this.spans.fill(-1);
    this.payloadObject = false;
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
    if (c === 0x7b) return this.object(at, depth + 1, 0);
    if (c === 0x5b) return this.array(at, depth + 1);
    if (c === 0x74) return t.startsWith('true', at) ? at + 4 : GIVE_UP;
    if (c === 0x66) return t.startsWith('false', at) ? at + 5 : GIVE_UP;
    if (c === 0x6e) return t.startsWith('null', at) ? at + 4 : GIVE_UP;
    NUMBER.lastIndex = at;
    if (!NUMBER.test(t) || NUMBER.lastIndex === at) return GIVE_UP;
    const end = NUMBER.lastIndex;
    return plainNumber(t, at, end) ? end : GIVE_UP;
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

  /** The slot of a key (without escapes) at `level` (1: the frame, 2: its payload), or -1. */
  slot(keyStart: number, keyEnd: number, level: number): number {
    const keys = level === 1 ? FRAME_KEYS : level === 2 ? PAYLOAD_KEYS : null;
    if (keys === null) return -1;
    for (const [name, slot] of keys) {
      if (keyEnd - keyStart === name.length && this.text.startsWith(name, keyStart)) return slot;
    }
    return -1;
  }

  /**
   * An object. At `level` 1 (the frame) and 2 (its payload) each known member's value span is
   * recorded by slot; the payload's members are read in the same pass.
   */
  object(at: number, depth: number, level: number): number {
    if (depth > MAX_DEPTH) return GIVE_UP;
    const t = this.text;
    at = this.ws(at + 1);
    if (t.charCodeAt(at) === 0x7d) return at + 1;
    for (;;) {
      if (t.charCodeAt(at) !== 0x22) return GIVE_UP;
      const keyEnd = this.string(at, true);
      if (keyEnd < 0) return GIVE_UP;
      const slot = this.slot(at + 1, keyEnd - 1, level);
      at = this.ws(keyEnd);
      if (t.charCodeAt(at) !== 0x3a) return GIVE_UP;
      at = this.ws(at + 1);
      const start = at;
      if (slot === SLOT.payload) {
        // a repeated payload replaces the earlier one whole, as with JSON.parse
        this.spans.fill(-1, 2 * SLOT.data);
        this.payloadObject = t.charCodeAt(at) === 0x7b;
        at = this.payloadObject ? this.object(at, depth + 1, 2) : this.value(at, depth);
      } else at = this.value(at, depth);
      if (at < 0) return GIVE_UP;
      if (slot >= 0) {
        this.spans[2 * slot] = start;
        this.spans[2 * slot + 1] = at;
      }
      at = this.ws(at);
      const c = t.charCodeAt(at);
      if (c === 0x7d) return at + 1;
      if (c !== 0x2c) return GIVE_UP;
      at = this.ws(at + 1);
    }
  }
}

/** The result fields that travel, in the order the object path writes them (no `errors`). */
const RESULT_FIELDS = [
  ['data', SLOT.data],
  ['hasNext', SLOT.hasNext],
  ['extensions', SLOT.extensions],
] as const;

const scanner = new Scanner();

/**
 * Takes an upstream frame through the fast path: the id and the re-serialised payload of a
 * valid `next` frame, or null when the object path must decide (see the module comment).
 */
export function scanNext(text: string): FastNext | null {
  const s = scanner;
  s.reset(text);
  let at = s.ws(0);
  if (text.charCodeAt(at) !== 0x7b) return null;
  at = s.object(at, 1, 1);
  const whole = at >= 0 && s.ws(at) === text.length;
  s.text = ''; // keep no frame alive between passes
  if (!whole) return null;
  const spans = s.spans;
  const [typeStart, typeEnd, idStart, idEnd] = spans;
  if (typeStart < 0 || idStart < 0 || !s.payloadObject) return null;
  if (typeEnd - typeStart !== 6 || !text.startsWith('"next"', typeStart)) return null;
  if (text.charCodeAt(idStart) !== 0x22 || idEnd - idStart < 3) return null;
  if (spans[2 * SLOT.errors] >= 0) return null;
  s.text = text;
  const plainId = s.string(idStart, true) === idEnd; // an id with an escape is left alone
  s.text = '';
  if (!plainId) return null;
  let out = '{';
  for (const [key, slot] of RESULT_FIELDS) {
    const start = spans[2 * slot];
    if (start < 0) continue;
    if (out.length > 1) out += ',';
    out += `"${key}":${text.slice(start, spans[2 * slot + 1])}`;
  }
  return {
    id: text.slice(idStart + 1, idEnd - 1),
    idJson: text.slice(idStart, idEnd),
    payload: `${out}}`,
  };
}
