/**
 * How deep a JSON text nests, read from the text before it is parsed (docs/configuration.md
 * "Ceilings", JSON_MAX_DEPTH; docs/readings.md "JSON nesting depth").
 *
 * Every JSON the gateway reads from a client (the GraphQL POST body, socket frames, the bodies of
 * the auth, publishing and admin routes) is measured here first and refused past the limit, so a
 * deep text never becomes a deep value: the runtime's `JSON.stringify`, which the gateway uses to
 * re-serialise what it forwards, recurses once per level and throws RangeError a few thousand
 * levels down (Node 20: between 4,000 and 5,000 from an empty stack), and the upstream's own
 * parser may fail sooner.
 *
 * Depth is the number of arrays and objects open at the deepest point of the text: a scalar text
 * (`1`, `"a"`) is depth 0, `{}` and `[]` are depth 1, `{"a":[1]}` is depth 2. The outer object of
 * a GraphQL body is depth 1 and its `variables` object depth 2; a batch (`[{..}]`) and a socket
 * frame (`{"payload":{..}}`) each hold their entry one level deeper.
 *
 * The scan is one pass without recursion: brackets and braces outside strings are counted, and a
 * string is skipped to its closing quote (the first `"` after an even run of backslashes). For a
 * text `JSON.parse` accepts the count is exact; for any other text the answer does not matter, as
 * the parse refuses it anyway.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * The index after the closing quote of the string whose opening quote is at `open`, or the text's
 * length when the string never closes. The one string skip of the gateway's JSON text scans (this
 * depth, the memory estimate of src/http/body.ts parsedJsonCost, the member test of
 * src/http/media_type.ts).
 */
export function stringEnd(text: string, open: number): number {
  let quote = text.indexOf('"', open + 1);
  while (quote !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    quote = text.indexOf('"', quote + 1);
  }
  return text.length;
}

/**
 * Whether the JSON `text` nests deeper than `max` levels (see the module comment for what a level
 * is). Stops at the first bracket past `max`: the cost is one pass over at most the whole text.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  const end = text.length;
  for (let at = 0; at < end; at++) {
    const c = text.charCodeAt(at);
    if (c === QUOTE) {
      at = stringEnd(text, at) - 1;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

/** The sentence of a refusal for a text nested past `max` levels (`what`: "The body", "Frame"). */
export function tooDeepSentence(what: string, max: number): string {
  return `${what} nests deeper than ${max} levels`;
}
