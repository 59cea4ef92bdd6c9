/**
 * The parse cache: each distinct text parsed once, failures cached, bounded.
 */

import assert from 'node:assert/strict';
import {
  analyzeEntry,
  isAnalysisFailure,
  ParseCache,
  parseDocument,
} from '../../src/graphql/mod.ts';
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

Deno.test('parse cache: bounded by entries and by text bytes; long texts are not kept', () => {
  const cache = new ParseCache({ maxEntries: 2, maxTextBytes: 1000, maxEntryBytes: 100 });
  cache.get('{ a }');
  cache.get('{ b }');
  cache.get('{ c }');
  assert.equal(cache.size, 2);
  const long = `{ ${'x '.repeat(100)}}`;
  const d1 = cache.get(long);
  assert.notEqual(cache.get(long), d1, 'parsed again, not cached');
  assert.equal(cache.size, 2);
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
