/**
 * The parse cache: each distinct text parsed once, failures cached, bounded by entries and by what
 * its trees hold (src/graphql/parse_cache.ts).
 */

import assert from 'node:assert/strict';
import {
  analyzeEntry,
  heldBytes,
  isAnalysisFailure,
  PARSE_CACHE_DEFAULTS,
  ParseCache,
  parseDocument,
} from '../../src/graphql/mod.ts';
import {
  type DefinitionNode,
  type FragmentDefinitionNode,
  Kind,
  parse,
  print,
  visit,
} from 'graphql';
import { collectAllowlist, renderAllowlist } from '../../scripts/gen_allowlist.ts';

Deno.test('parse cache: the same text gives the same document object', () => {
  const cache = new ParseCache();
  const a = cache.get('{ a }');
  assert.equal(cache.get('{ a }'), a);
  assert.notEqual(cache.get('{ a  }'), a);
  assert.equal(cache.size, 2);
});

Deno.test('parse cache: failures are cached with the parser sentence', () => {
  const cache = new ParseCache();
  const f = cache.get('{ a(');
  assert.ok('parseError' in f);
  assert.match(f.parseError, /Syntax Error/);
  assert.equal(cache.get('{ a('), f);
});

Deno.test('parse cache: bounded by entries; long texts are not kept', () => {
  const cache = new ParseCache({ maxEntries: 2, maxEntryBytes: 100 });
  cache.get('{ a }');
  cache.get('{ b }');
  cache.get('{ c }');
  assert.equal(cache.size, 2);
  const long = `{ ${'x '.repeat(100)}}`;
  const d1 = cache.get(long);
  assert.notEqual(cache.get(long), d1, 'parsed again, not cached');
  assert.equal(cache.size, 2);
});

Deno.test('parse cache: bounded by what its trees hold, at the limit and one past it', () => {
  const a = '{ alpha beta gamma }';
  const b = '{ delta { epsilon } }';
  const sizeA = heldBytes(a, parseDocument(a));
  const sizeB = heldBytes(b, parseDocument(b));
  // the tree counts: far more than the text (3 fields at 340 bytes a token, under 58 a character)
  assert.equal(sizeA, a.length + Math.min(a.length * 58, 5 * 340));
  const atLimit = new ParseCache({ maxHeldBytes: sizeA + sizeB });
  const docA = atLimit.get(a);
  atLimit.get(b);
  assert.equal(atLimit.size, 2);
  assert.equal(atLimit.heldBytes, sizeA + sizeB);
  assert.equal(atLimit.get(a), docA, 'both kept at the limit');
  const past = new ParseCache({ maxHeldBytes: sizeA + sizeB - 1 });
  const first = past.get(a);
  past.get(b);
  assert.equal(past.size, 1, 'one past the limit: the older is dropped');
  assert.ok(past.heldBytes <= sizeA + sizeB - 1);
  assert.notEqual(past.get(a), first, 'parsed again');
  // a failure holds its text and its sentence
  const bad = '{ a(';
  const failure = parseDocument(bad);
  assert.ok('parseError' in failure);
  assert.equal(heldBytes(bad, failure), bad.length + failure.parseError.length);
});

Deno.test('parse cache: the default bound holds every operation of the app, at 96 MiB', async () => {
  const cache = new ParseCache();
  assert.equal(PARSE_CACHE_DEFAULTS.maxHeldBytes, 96 * 1024 * 1024);
  const dir = new URL('../../data/upstream/operations/', import.meta.url);
  let texts = 0;
  for await (const file of Deno.readDir(dir)) {
    const text = await Deno.readTextFile(new URL(file.name, dir));
    for (const operation of splitOperations(text)) {
      assert.ok(!('parseError' in cache.get(operation)), operation.slice(0, 60));
      texts++;
    }
  }
  assert.equal(texts, 560);
  assert.equal(cache.size, texts, 'none dropped');
  assert.ok(cache.heldBytes <= PARSE_CACHE_DEFAULTS.maxHeldBytes);
  // a flood of distinct documents stays within the bound
  for (let i = 0; i < 2000; i++) cache.get(`{ ${`f${i} `.repeat(200)}}`);
  assert.ok(cache.heldBytes <= PARSE_CACHE_DEFAULTS.maxHeldBytes, `${cache.heldBytes}`);
});

Deno.test('parse: a document too deep for the parser is a failure, not a crash', () => {
  const text = '{ a '.repeat(100_000) + '}'.repeat(100_000);
  const r = parseDocument(text);
  assert.ok('parseError' in r || 'kind' in r);
  const a = analyzeEntry({ query: text });
  assert.ok(isAnalysisFailure(a));
  assert.equal(a.code, 'ProxyMalformedQuery');
});

Deno.test('generator: root fields of every operation, fragments followed, aliases ignored', async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/one.graphql`,
      'query A { x: b { c } ...F } fragment F on Query { d }',
    );
    await Deno.writeTextFile(`${dir}/two.graphql`, 'mutation M { a } subscription S { e }');
    await Deno.writeTextFile(`${dir}/skip.txt`, 'query Z { z }');
    const names = await collectAllowlist(dir);
    assert.deepEqual(names, ['a', 'b', 'd', 'e']);
    const text = renderAllowlist(names);
    assert.match(text, /GENERATED FILE/);
    assert.match(text, /deno task gen:allowlist/);
    assert.match(text, /'a',\n {2}'b',/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Each operation of a file of app documents, as one text with the fragments it uses. */
function splitOperations(text: string): string[] {
  const doc = parse(text, { noLocation: true });
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of doc.definitions) {
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  }
  return doc.definitions
    .filter((d) => d.kind === Kind.OPERATION_DEFINITION)
    .map((op) => {
      const used = new Map<string, FragmentDefinitionNode>();
      const todo = spreadsOf(op);
      for (let name = todo.pop(); name !== undefined; name = todo.pop()) {
        const fragment = fragments.get(name);
        if (fragment === undefined || used.has(name)) continue;
        used.set(name, fragment);
        todo.push(...spreadsOf(fragment));
      }
      return print({ kind: Kind.DOCUMENT, definitions: [op, ...used.values()] });
    });
}

function spreadsOf(node: DefinitionNode): string[] {
  const names: string[] = [];
  visit(node, { FragmentSpread: (spread) => void names.push(spread.name.value) });
  return names;
}
