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
 * one JSON line: per shape, bytes per body byte of each form (the document's per character of query
 * text) and per unit (one repeated piece: a plain field is one token, an aliased field three, a
 * spread two).
 */
import { execFileSync } from 'node:child_process';
import process from 'node:process';
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
    documentPerUnit: queryChars > 1000 ? per(h3 - h2, units) : null,
    forwarded: per(h4 - h3b, size),
  };
}

/** The structural marks of a JSON text: `{`, `[`, `,` and `:` outside strings. */
function jsonMarks(/** @type {string} */ text) {
  let marks = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b || c === 0x2c || c === 0x3a) marks++;
  }
  return marks;
}

/** Parsed copies held at once by the resident measure. */
const COPIES = 4;

/**
 * In a fresh process (one shape each: what an earlier shape left committed would be reused): the
 * resident growth while COPIES parsed values (and their documents) of one body are held at once,
 * with no collection between them, per byte of the bodies (and per character of their queries).
 * This is what the process's memory sees: the heap's live objects, its garbage and the pages
 * the heap grew by.
 * @param {string} name
 */
function resident(name) {
  const body = SHAPES[name]().text;
  gc();
  const r0 = process.memoryUsage().rss;
  const held = [];
  for (let i = 0; i < COPIES; i++) held.push(JSON.parse(body));
  const r1 = process.memoryUsage().rss;
  const entries = held.flatMap((json) => Array.isArray(json) ? json : [json]);
  const queryChars = entries.reduce((n, e) => n + e.query.length, 0);
  const documents = entries.map((e) => parse(e.query, { noLocation: true }));
  const r2 = process.memoryUsage().rss;
  const per = (/** @type {number} */ delta, /** @type {number} */ of) => +(delta / of).toFixed(2);
  const marks = jsonMarks(body);
  return {
    json: per(r1 - r0, COPIES * body.length),
    // per structural mark ({ [ , :), beyond 2 bytes a character (src/http/body.ts's estimate)
    jsonPerMark: marks > 1000 ? per(r1 - r0 - 2 * COPIES * body.length, COPIES * marks) : null,
    document: queryChars > 1000 * COPIES ? per(r2 - r1, queryChars) : null,
    held: held.length + documents.length,
  };
}

/** Runs this file again for `name` alone, in a fresh process of the same runtime. */
function residentInChild(/** @type {string} */ name) {
  const script = new URL(import.meta.url).pathname;
  const [command, args] = typeof Deno === 'undefined'
    ? [process.execPath, [...process.execArgv, script, '--resident', name]]
    : [Deno.execPath(), ['run', '-A', '--v8-flags=--expose-gc', script, '--resident', name]];
  return JSON.parse(execFileSync(command, args, { encoding: 'utf8' }));
}

const at = process.argv.indexOf('--resident');
if (at >= 0) {
  console.log(JSON.stringify(resident(process.argv[at + 1])));
} else {
  /** @type {Record<string, unknown>} */
  const out = {};
  for (const [name, make] of Object.entries(SHAPES)) {
    out[name] = { ...measure(make), resident: residentInChild(name) };
  }
  console.log(
    JSON.stringify({
      runtime: typeof Deno === 'undefined'
        ? `node ${process.version}`
        : `deno ${Deno.version.deno}`,
      shapes: out,
    }),
  );
}
