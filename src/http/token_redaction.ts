/**
 * The master token never leaves in anything the gateway passes on (SPEC "What the service does" 1:
 * the service holds the token "so the browser never holds it"; docs/operations.md "The master
 * token in answers"). An upstream, or a debugging proxy in front of it, may echo the authorization
 * it received ("Token rejected: Bearer <token>"); every occurrence of the token in what is passed
 * on is replaced by {@link REDACTED}: GraphQL answers, upload answers (streamed, whatever the
 * chunk boundaries), the headers passed on, socket frames, close reasons and log lines.
 *
 * The one implementation of "replace the token": {@link redactText} for text held whole,
 * {@link TokenRedactor} for bytes that arrive in chunks. Both search the same forms of the token
 * ({@link tokenForms}; docs/readings.md "Readings of the spec's rules"): as it is, and as a JSON
 * encoder writes it inside a string (`"` and `\` escaped, and `/` as `\/` as some encoders write
 * it). The replacement is plain ASCII without JSON's special characters, so a JSON string that
 * held the token stays a valid JSON string.
 *
 * A copy cut short is replaced too: a run that matches the start of a form for at least half the
 * form's length ({@link cutCopyMin}), wherever the run stops (the text's end, as in an upstream
 * close reason cut at 123 bytes or an answer that ends inside the token, or a character that
 * differs, as in "Bearer tok/EN+4f9...").
 */
import { Buffer } from 'node:buffer';

/** What stands in for the token. */
export const REDACTED = '[redacted]';

const REDACTED_BYTES = new TextEncoder().encode(REDACTED);

/** Forms and the start of each that marks a copy, in one unit (characters, or bytes as latin1). */
interface Search {
  /** The forms, longest first. */
  readonly forms: readonly string[];
  /** Each form's first {@link cutCopyMin} characters: where a copy, whole or cut short, starts. */
  readonly starts: readonly string[];
}

/** The searched forms of one token, longest first: as text, and as their UTF-8 bytes read as latin1. */
interface Forms {
  readonly token: string;
  readonly texts: readonly string[];
  readonly text: Search;
  /** Each form's UTF-8 bytes as a latin1 string: one character a byte (see {@link replaceIn}). */
  readonly latin1: Search;
  /** Bytes of the longest form. */
  readonly longest: number;
}

/** The least run a cut copy must match, in characters, where half the form is less. */
const CUT_COPY_FLOOR = 8;

/**
 * How much of the start of a form of `length` characters a run must match to be replaced: half of
 * it rounded up, and at least {@link CUT_COPY_FLOOR} (the whole form when it is shorter). A cut
 * copy shorter than that leaves at least half the token unknown.
 */
export function cutCopyMin(length: number): number {
  return Math.min(length, Math.max(CUT_COPY_FLOOR, Math.ceil(length / 2)));
}

/** The forms of the last token asked about (a process has one master token). */
let lastForms: Forms | null = null;

/**
 * The forms of `token` searched for, longest first, without repeats: the token, its JSON string
 * escape (`"`, `\` and control characters), and that escape with `/` written `\/`.
 */
export function tokenForms(token: string): readonly string[] {
  return formsOf(token).texts;
}

function formsOf(token: string): Forms {
  if (lastForms?.token === token) return lastForms;
  const json = JSON.stringify(token).slice(1, -1);
  const texts = [...new Set([token, json, json.replaceAll('/', '\\/')])]
    .sort((a, b) => b.length - a.length);
  const starts = texts.map((t) => t.slice(0, cutCopyMin(t.length)));
  const latin1 = (t: string) => Buffer.from(t, 'utf8').toString('latin1');
  lastForms = {
    token,
    texts,
    text: { forms: texts, starts },
    latin1: { forms: texts.map(latin1), starts: starts.map(latin1) },
    longest: Buffer.byteLength(texts[0], 'utf8'),
  };
  return lastForms;
}

/**
 * The leftmost copy in `text` starting at `from` or later and before `before`: where a form's
 * start is found, the run goes on while the text matches that form; at one place the longest run
 * of any form. Null when none.
 */
function nextCopy(
  text: string,
  search: Search,
  from: number,
  before: number,
): { at: number; length: number } | null {
  let at = -1;
  for (const start of search.starts) {
    const found = text.indexOf(start, from);
    if (found !== -1 && found < before && (at === -1 || found < at)) at = found;
  }
  if (at === -1) return null;
  let length = 0;
  search.forms.forEach((form, i) => {
    if (!text.startsWith(search.starts[i], at)) return;
    let run = search.starts[i].length;
    while (run < form.length && text.charCodeAt(at + run) === form.charCodeAt(run)) run++;
    length = Math.max(length, run);
  });
  return { at, length };
}

/**
 * `text` with every copy of a form of `token`, whole or cut short, replaced by {@link REDACTED};
 * `text` itself (no copy) when it holds none, or when `token` is null or empty (no token: nothing
 * to hide).
 */
export function redactText(text: string, token: string | null | undefined): string {
  if (!token) return text;
  const search = formsOf(token).text;
  let copy = nextCopy(text, search, 0, text.length);
  if (copy === null) return text;
  let out = '';
  let from = 0;
  while (copy !== null) {
    out += text.slice(from, copy.at) + REDACTED;
    from = copy.at + copy.length;
    copy = nextCopy(text, search, from, text.length);
  }
  return out + text.slice(from);
}

/**
 * Replaces the token in a byte stream cut into chunks at any place: each {@link push} passes on
 * what can no longer be the start of a form of the token and holds back at most the longest form's
 * length - 1 bytes (a form split across chunks is found once its end arrives); {@link end} passes
 * on what is held, a copy cut short by the stream's end replaced. Bytes are searched as bytes (no
 * text decoding: an answer may be binary). The output is the same whatever the chunk boundaries:
 * that of the whole stream pushed as one chunk.
 */
export class TokenRedactor {
  readonly #forms: Forms;
  /** Bytes held back from the last chunk (never more than longest - 1). */
  #held: Uint8Array | null = null;

  constructor(token: string) {
    this.#forms = formsOf(token);
  }

  /** Bytes held back right now (at most the longest form's length - 1). */
  get heldBytes(): number {
    return this.#held?.byteLength ?? 0;
  }

  /** What may be passed on after `chunk` (possibly empty; a view of `chunk` when nothing changed). */
  push(chunk: Uint8Array): Uint8Array {
    const buffer = this.#held === null ? chunk : concat([this.#held, chunk]);
    const [out, used] = replaceIn(buffer, this.#forms, buffer.byteLength - this.#forms.longest + 1);
    // a copy: the output may be a view of `buffer`, and its reader may keep or transfer it
    this.#held = used < buffer.byteLength ? new Uint8Array(buffer.subarray(used)) : null;
    return out;
  }

  /** What is still held, with the token replaced; the stream has ended. */
  end(): Uint8Array {
    const held = this.#held;
    this.#held = null;
    if (held === null) return new Uint8Array(0);
    return replaceIn(held, this.#forms, held.byteLength)[0];
  }
}

/**
 * Replaces every copy (whole or cut short, see {@link nextCopy}) that starts before `safe` in
 * `buffer`. Such a copy is decided within `buffer` when `safe` <= length - longest + 1, so nothing
 * beyond `safe` can change what is decided; at the stream's end (`safe` = length) a run that
 * reaches the end is a copy cut there. Returns the output and how many bytes of `buffer` it covers:
 * `safe`, or further when a copy found ends past it.
 *
 * The bytes are searched as a latin1 string (one character a byte, so its offsets are the bytes'):
 * V8's string search, where Deno's Buffer#indexOf scans at about a tenth of its speed
 * (docs/benchmarks.md "The master token's replacement").
 */
function replaceIn(buffer: Uint8Array, forms: Forms, safe: number): [Uint8Array, number] {
  const text = Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength).toString('latin1');
  let parts: Uint8Array[] | null = null;
  let from = 0;
  for (let copy = nextCopy(text, forms.latin1, 0, safe); copy !== null;) {
    (parts ??= []).push(buffer.subarray(from, copy.at), REDACTED_BYTES);
    from = copy.at + copy.length;
    copy = nextCopy(text, forms.latin1, from, safe);
  }
  const used = Math.max(from, safe, 0);
  if (parts === null) return [buffer.subarray(0, used), used];
  parts.push(buffer.subarray(from, used));
  return [concat(parts), used];
}

/** One new Uint8Array holding `parts` in order (not Buffer.concat: its small results share a pool). */
function concat(parts: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (const part of parts) size += part.byteLength;
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}
