/**
 * What each form of a request body holds, per byte of the body: the figures behind the memory
 * budget's request factors (src/config/defaults.ts `memoryJsonPerByte`, `memoryDocumentPerChar`;
 * docs/operations.md "Memory"). Plain JavaScript so both runtimes run the same file:
 *
 *   node --expose-gc scripts/bench/representation_cost.mjs
 *   deno run -A --v8-flags=--expose-gc scripts/bench/representation_cost.mjs
 *
 * For ~2 MB bodies of each shape: the V8 heap in use after two forced collections, before and
 * after the decoded text, the parsed JSON value, the parsed GraphQL documents (graphql-js, no
 * locations, as src/graphql/parse_cache.ts parses) and the forwarded body rebuilt from it. Prints
 * one JSON line: per shape, bytes per body byte of each form and per unit (one repeated piece).
 */
import { parse } from 'graphql';

const gc = /** @type {() => void} */ (/** @type {any} */ (globalThis).gc);
if (typeof gc !== 'function') throw new Error('run with --expose-gc (see the module comment)');
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const TARGET = 2_000_000;

/**
 * `head`, then `unit(i)` repeated until the text is TARGET long, then `tail`.
 * @param {string} head @param {(i: number) => string} unit @param {string} tail
 */
function fill(head, unit, tail) {
  const parts = [head];
  let n = head.length + tail.length;
  let i = 0;
  while (n < TARGET) {
    const u = unit(i++);
    parts.push(u);
    n += u.length;
  }
  parts.push(tail);
  return { text: parts.join(''), units: i };
}

const Q = 'query Q($v: [In]) { currentUser { id } }';
/** @param {(i: number) => string} unit */
const wideVariables = (unit) => {
  const f = fill('', (i) => (i ? ',' : '') + unit(i), '');
  return { text: `{"query":"${Q}","variables":{"v":[${f.text}]}}`, units: f.units };
};
/** @param {{ text: string, units: number }} f */
const documentBody = (f) => ({ text: JSON.stringify({ query: f.text }), units: f.units });

/** @type {Record<string, () => { text: string, units: number }>} */
const SHAPES = {
  aliases: () => documentBody(fill('query Q { ', (i) => `a${i}: __typename `, '}')),
  plain_fields: () => documentBody(fill('query Q { ', () => '__typename ', '}')),
  fragment_spreads: () =>
    documentBody(fill('query Q { currentUser { ', () => '...F ', '} } fragment F on User { id }')),
  batch_of_25: () => {
    const per = Math.floor(TARGET / 25) - 40;
    const entries = Array.from({ length: 25 }, (_, k) => {
      const f = fill(`query Q${k} { `, (i) => `a${i}: __typename `, '}');
      return { query: f.text.slice(0, per) + ' }' };
    });
    return { text: JSON.stringify(entries), units: 25 };
  },
  variables_empty_objects: () => wideVariables(() => '{}'),
  variables_empty_arrays: () => wideVariables(() => '[]'),
  variables_nested_arrays: () => wideVariables(() => '[[[]]]'),
  variables_small_objects: () => wideVariables(() => '{"a":1,"b":"x"}'),
  variables_distinct_keys: () => wideVariables((i) => `{"${i.toString(36)}":1}`),
  variables_digits: () => wideVariables((i) => String(i % 10)),
  variables_strings: () => wideVariables((i) => `"${i.toString(36)}"`),
};

/** @param {() => { text: string, units: number }} make */
function measure(make) {
  const { text: body, units } = make();
  const bytes = new TextEncoder().encode(body);
  const size = bytes.byteLength;
  const h0 = heap();
  let text = /** @type {string | null} */ (new TextDecoder().decode(bytes));
  const h1 = heap();
  let json = JSON.parse(text);
  text = null;
  const h2 = heap();
  const entries = Array.isArray(json) ? json : [json];
  const queryChars = entries.reduce((n, e) => n + e.query.length, 0);
  let _documents =
    /** @type {unknown[] | null} */ (entries.map((e) => parse(e.query, { noLocation: true })));
  const h3 = heap();
  _documents = null;
  const h3b = heap();
  let _forwarded = /** @type {string | null} */ (JSON.stringify(json));
  const h4 = heap();
  _forwarded = null;
  json = null;
  const per = (/** @type {number} */ delta, /** @type {number} */ of) => +(delta / of).toFixed(2);
  return {
    bytes: size,
    units,
    text: per(h1 - h0, size),
    json: per(h2 - h0, size),
    jsonPerUnit: per(h2 - h0, units),
    // per character of query text; the few characters of a variables shape tell nothing
    document: queryChars > 1000 ? per(h3 - h2, queryChars) : null,
    forwarded: per(h4 - h3b, size),
  };
}

/** @type {Record<string, ReturnType<typeof measure>>} */
const out = {};
for (const [name, make] of Object.entries(SHAPES)) out[name] = measure(make);
console.log(
  JSON.stringify({
    runtime: typeof Deno === 'undefined' ? `node ${process.version}` : `deno ${Deno.version.deno}`,
    shapes: out,
  }),
);
