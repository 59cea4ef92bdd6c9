/**
 * The relay's fast path for the upstream's `next` frames: one validating pass over the frame's
 * text that re-serialises what it checked, without building the objects.
 *
 * Implements the route table's WS row ("every later frame is re-serialised") and SPEC "Events"
 * 1 for the one frame type a stream is made of, with a scan instead of `JSON.parse` +
 * `JSON.stringify`. It exists for speed alone: it stays while the relay's CPU goal (CPU per
 * frame within 1.15x of the plain floor, docs/benchmarks.md "WebSocket relay") is missed
 * without it, as measured in docs/benchmarks.md "Speed-only pieces". The pass checks the whole
 * text against the JSON grammar (RFC 8259), and emits a fresh envelope
 * `{"id":..,"type":"next","payload":{..}}` whose payload holds only the execution result's fields
 * (`data`, `hasNext`, `extensions`, in that order, as `rebuildResult` writes them), each copied
 * from text the pass has just validated.
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
  /**
   * The re-serialised frame's text when the frame arrived written exactly so (then it is the
   * frame's own text, every character of it validated), else null (the caller writes it:
   * `serialiseNext(id, payload, idJson)`).
   */
  frame: string | null;
}

/** The members the pass records, by slot: the frame's, then its payload's. */
const SLOT = { type: 0, id: 1, payload: 2, data: 3, hasNext: 4, extensions: 5, errors: 6 } as const;
// the keys each level records, by their length (no two share one), and their slots
const FRAME_KEYS: (string | undefined)[] = [];
const FRAME_SLOTS: number[] = [];
const PAYLOAD_KEYS: (string | undefined)[] = [];
const PAYLOAD_SLOTS: number[] = [];
for (
  const [keys, slots, names] of [
    [FRAME_KEYS, FRAME_SLOTS, ['type', 'id', 'payload']],
    [PAYLOAD_KEYS, PAYLOAD_SLOTS, ['data', 'hasNext', 'extensions', 'errors']],
  ] as const
) {
  for (const name of names) {
    keys[name.length] = name;
    slots[name.length] = SLOT[name];
  }
}

// a string's characters up to its end or an escape; control characters stop it (not JSON). A
// regex: on long strings it is faster than a loop over the characters (docs/benchmarks.md "The
// long-string check and the Node floor with the host's legs")
// deno-lint-ignore no-control-regex
const STRING_BODY = /[^"\\\u0000-\u001f]*/y;
/** Characters of a string scanned by hand before the regex takes over. */
const SHORT_RUN = 16;
/**
 * Characters past the hand-scanned run from which a string without an escape is checked by the
 * runtime's JSON parser instead of the regex ({@link plainLongString}): the parser's call has a
 * fixed cost and the regex one per character, so below it the regex is the cheaper (the figures:
 * docs/benchmarks.md "The long-string check and the Node floor with the host's legs").
 */
const LONG_RUN = 240;

/**
 * Whether the number text [start, end) reads back as `JSON.stringify` would write it: not past
 * the double's range (`1e400` reads as Infinity, the object path writes null) and not -0 (the
 * object path writes 0). Up to 15 characters without an exponent it cannot overflow.
 */
function plainNumber(t: string, start: number, end: number, exponent: boolean): boolean {
  const short = !exponent && end - start <= 15;
  if (short && t.charCodeAt(start) !== 0x2d) return true;
  if (short && t.charCodeAt(start + 1) !== 0x30) return true;
  const value = Number(t.slice(start, end));
  return Number.isFinite(value) && !Object.is(value, -0);
}

/**
 * Whether the text between the quotes at `open` and `close` (the first `"` after `open`) is a
 * JSON string's body without any escape: the runtime's JSON parser reads the literal
 * `t[open..close]` (it refuses a control character, a bad escape, a body cut at an escaped
 * quote), and a body that reads back at its own length held no escape, as every escape reads as
 * fewer characters than it is written with. Used on long bodies only, where the parser is the
 * faster of the two ({@link LONG_RUN}). False sends the caller back to the regex, which decides.
 */
function plainLongString(t: string, open: number, close: number): boolean {
  try {
    return (JSON.parse(t.slice(open, close + 1)) as string).length === close - open - 1;
  } catch {
    return false;
  }
}

/** Whether `c` is an ASCII digit. */
function digit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
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
  /** {@link canonical}: the index after the id's closing quote. */
  idEnd = -1;

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
    const end = t.length;
    const open = at;
    let escaped = false;
    at++;
    for (;;) {
      // a short run by hand (most keys and values: a regex call costs more than their scan), the
      // rest of a long one without escapes by the JSON parser, else by the regex
      const stop = at + SHORT_RUN < end ? at + SHORT_RUN : end;
      for (let c = t.charCodeAt(at); at < stop && c !== 0x22 && c !== 0x5c && c >= 0x20;) {
        c = t.charCodeAt(++at);
      }
      if (at === stop) {
        // (no search where the text left is too short to hold a long run: small frames)
        const close = escaped || end - at < LONG_RUN ? -1 : t.indexOf('"', at);
        if (close - at >= LONG_RUN && plainLongString(t, open, close)) return close + 1;
        STRING_BODY.lastIndex = at;
        STRING_BODY.test(t);
        at = STRING_BODY.lastIndex;
      }
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
      escaped = true;
    }
  }

  /**
   * A number (RFC 8259: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`) at `at`;
   * answers the index after it, or GIVE_UP (also for one that does not read back the same,
   * {@link plainNumber}).
   */
  number(at: number): number {
    const t = this.text;
    let i = at;
    if (t.charCodeAt(i) === 0x2d) i++;
    const first = t.charCodeAt(i);
    if (first === 0x30) i++;
    else if (first > 0x30 && first <= 0x39) { while (digit(t.charCodeAt(++i))); }
    else return GIVE_UP;
    if (t.charCodeAt(i) === 0x2e) {
      if (!digit(t.charCodeAt(++i))) return GIVE_UP;
      while (digit(t.charCodeAt(++i)));
    }
    const exponent = (t.charCodeAt(i) | 0x20) === 0x65; // e, E
    if (exponent) {
      const sign = t.charCodeAt(++i);
      if (sign === 0x2b || sign === 0x2d) i++;
      if (!digit(t.charCodeAt(i))) return GIVE_UP;
      while (digit(t.charCodeAt(++i)));
    }
    return plainNumber(t, at, i, exponent) ? i : GIVE_UP;
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
    return this.number(at);
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
    if (level === 0) return -1;
    const keys = level === 1 ? FRAME_KEYS : PAYLOAD_KEYS;
    const name = keys[keyEnd - keyStart];
    if (name === undefined || !this.text.startsWith(name, keyStart)) return -1;
    return (level === 1 ? FRAME_SLOTS : PAYLOAD_SLOTS)[keyEnd - keyStart];
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

  /**
   * Reads the text as a frame already written exactly as the relay re-serialises it
   * (`{"id":"<id>","type":"next","payload":{..}}`, no whitespace between members, the payload's
   * members among `data`, `hasNext`, `extensions`, each once and in that order, the id without
   * escapes; what graphql-ws servers send). Answers the payload's end, else GIVE_UP (the general
   * pass then decides). `idEnd`: the index after the id's closing quote.
   */
  canonical(): number {
    const t = this.text;
    if (!t.startsWith(CANONICAL_HEAD)) return GIVE_UP;
    const idEnd = this.idEnd = this.string(CANONICAL_HEAD.length - 1, true);
    if (idEnd < CANONICAL_HEAD.length + 2 || !t.startsWith(CANONICAL_MID, idEnd)) return GIVE_UP;
    let at = idEnd + CANONICAL_MID.length;
    let last: number = SLOT.payload; // the slot of the last member read: each must come after it
    if (t.charCodeAt(at) === 0x7d) return at + 1;
    for (;;) {
      if (t.charCodeAt(at) !== 0x22) return GIVE_UP;
      const keyEnd = this.string(at, true);
      if (keyEnd < 0) return GIVE_UP;
      const slot = this.slot(at + 1, keyEnd - 1, 2);
      if (slot <= last || slot === SLOT.errors || t.charCodeAt(keyEnd) !== 0x3a) return GIVE_UP;
      last = slot;
      at = this.value(keyEnd + 1, 2);
      if (at < 0) return GIVE_UP;
      const c = t.charCodeAt(at);
      if (c === 0x7d) return at + 1;
      if (c !== 0x2c) return GIVE_UP;
      at++;
    }
  }
}

/** How a frame written as the relay writes it begins, up to its id's opening quote. */
const CANONICAL_HEAD = '{"id":"';
/** What follows its id's closing quote, up to the payload's opening brace. */
const CANONICAL_MID = ',"type":"next","payload":{';

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
  s.text = text;
  const payloadEnd = s.canonical();
  s.text = ''; // keep no frame alive between passes
  if (payloadEnd >= 0 && payloadEnd === text.length - 1 && text.charCodeAt(payloadEnd) === 0x7d) {
    const idEnd = s.idEnd;
    return {
      id: text.slice(CANONICAL_HEAD.length, idEnd - 1),
      idJson: text.slice(CANONICAL_HEAD.length - 1, idEnd),
      payload: text.slice(idEnd + CANONICAL_MID.length - 1, payloadEnd),
      frame: text,
    };
  }
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
    frame: null,
  };
}
