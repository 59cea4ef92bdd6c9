/**
 * The document registry (SPEC "Document checks in detail", step 10).
 */

import assert from 'node:assert/strict';
import { buildRegistry, registryCheck, RegistryError, registryKey } from '../../src/graphql/mod.ts';
import type { Refusal } from '../../src/http/error_codes.ts';

const DOC =
  'query Flows($botID: BotID!) {\n  bot(id: $botID) {\n    id\n    ...F\n  }\n}\nfragment F on Bot { title }';

function refusalOf(r: ReturnType<typeof registryCheck>): Refusal {
  assert.ok('code' in r, 'expected a refusal');
  return r;
}

Deno.test('registry: a document with two operations fails at build', () => {
  assert.throws(() => buildRegistry(['query A { a } query B { b }']), RegistryError);
  assert.throws(() => buildRegistry([DOC, '{ a } { b }']), /defines 2 operations/);
});

Deno.test('registry: a document with no operation, or one that does not parse, fails at build', () => {
  assert.throws(() => buildRegistry(['fragment F on Q { a }']), /defines 0 operations/);
  assert.throws(() => buildRegistry(['query {']), /does not parse/);
});

Deno.test('registry: two different operations sharing a key fail at build', () => {
  assert.throws(() => buildRegistry(['query A { a b }', 'query A { ab }']), /sharing a key/);
  assert.throws(() => buildRegistry(['{ foo bar }', '{ foob ar }']), /sharing a key/);
});

Deno.test('registry: the same operation with other spacing, commas or comments is one record', () => {
  const variant = DOC.replaceAll('\n', ' ').replace('{', '{ # comment\n,,') + '\n# trailing';
  const r = buildRegistry([DOC, variant, DOC]);
  assert.equal(r.size, 1);
  assert.equal(r.lookup(variant)?.text, variant, 'an exact text finds its own record');
});

Deno.test('registry: fragments beside the operation are fine; the name comes from the record', () => {
  const r = buildRegistry([DOC, '{ anonymous }']);
  assert.equal(r.size, 2);
  assert.deepEqual(r.lookup(DOC), { text: DOC, operationName: 'Flows' });
  assert.deepEqual(r.lookup('{anonymous}'), { text: '{ anonymous }', operationName: null });
});

Deno.test('registry: the key strips whitespace, line breaks, commas and comments, not string content', () => {
  assert.equal(registryKey('{ a(x: 1, y: 2) }'), registryKey('{a(x:1\ny:2)}# c'));
  assert.notEqual(registryKey('{ a(x: "# not a comment") }'), registryKey('{ a(x: "") }'));
  assert.notEqual(registryKey('{ a(x: "a b") }'), registryKey('{ a(x: "ab") }'));
  assert.notEqual(registryKey('{ a(x: "a,b") }'), registryKey('{ a(x: "ab") }'));
  assert.match(registryKey('{ a }'), /^[0-9a-f]{64}$/);
});

Deno.test('registry: a match forwards the record text and its own operation name', () => {
  const r = buildRegistry([DOC]);
  const sent = {
    query: DOC.replaceAll('  ', '\t'),
    operationName: 'Evil',
    variables: { botID: 'B' },
  };
  const out = registryCheck(r, sent);
  assert.ok(!('code' in out));
  assert.deepEqual(out.entry, { query: DOC, operationName: 'Flows', variables: { botID: 'B' } });
});

Deno.test('registry: a document the app does not ship is 403 OperationNotInRegistry', () => {
  const r = buildRegistry([DOC]);
  const refusal = refusalOf(registryCheck(r, { query: '{ currentUser { email } }' }));
  assert.equal(refusal.code, 'OperationNotInRegistry');
  // A string literal changed is another document.
  const changed = DOC.replace('title', 'title apiToken');
  assert.equal(refusalOf(registryCheck(r, { query: changed })).code, 'OperationNotInRegistry');
});

Deno.test('registry: with no match, a text that does not parse is 400 ProxyMalformedQuery', () => {
  const r = buildRegistry([DOC]);
  assert.equal(refusalOf(registryCheck(r, { query: '{ a(' })).code, 'ProxyMalformedQuery');
  assert.equal(refusalOf(registryCheck(r, { query: '"unterminated' })).code, 'ProxyMalformedQuery');
});

Deno.test('registry: an empty registry refuses every document', () => {
  const r = buildRegistry([]);
  assert.equal(r.size, 0);
  assert.equal(refusalOf(registryCheck(r, { query: DOC })).code, 'OperationNotInRegistry');
  assert.equal(refusalOf(registryCheck(r, { query: '{ a(' })).code, 'ProxyMalformedQuery');
});

Deno.test('registry: no registry means no check', () => {
  const entry = { query: '{ anything }', operationName: 'X' };
  for (const none of [undefined, null]) {
    const out = registryCheck(none, entry);
    assert.ok(!('code' in out));
    assert.equal(out.entry, entry);
  }
});
