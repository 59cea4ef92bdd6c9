/**
 * Table-driven: every way a bot can be named or hidden in one entry (SPEC "Order in which a
 * GraphQL body is checked" steps 11, 17, 19; facts `botIdArguments`).
 */

import assert from 'node:assert/strict';
import { analyzeEntries, botsAreStrings, isAnalysisFailure } from '../../src/graphql/mod.ts';
import { analysed, botValues } from './helpers.ts';

interface BotCase {
  name: string;
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
  /** Expected bot values (order of discovery not asserted). */
  bots: unknown[];
  /** Expected: the bot is named in a shape that cannot be resolved. */
  unresolvable?: boolean;
}

const CASES: BotCase[] = [
  {
    name: 'literal botID on a root field',
    query: 'mutation { createFlow(botID: "B1", platform: X) { id } }',
    bots: ['B1'],
  },
  { name: 'literal botId spelling', query: '{ thing(botId: "B1") { id } }', bots: ['B1'] },
  { name: 'bot(id:)', query: '{ bot(id: "B1") { id } }', bots: ['B1'] },
  { name: 'bot(id:) behind an alias', query: '{ mine: bot(id: "B1") { id } }', bots: ['B1'] },
  {
    name: 'botID field behind an alias',
    query: '{ x: createFlow(botID: "B1") { id } }',
    bots: ['B1'],
  },
  {
    name: 'botInstagramMediaAdded(id:)',
    query: 'subscription { botInstagramMediaAdded(id: "B1") { id } }',
    bots: ['B1'],
  },
  {
    name: 'botInstagramRefetchLatestMedias(id:)',
    query: 'mutation { botInstagramRefetchLatestMedias(id: "B1", count: 3) { id } }',
    bots: ['B1'],
  },
  { name: 'deep field', query: '{ a { b { c { d(botID: "B1") } } } }', bots: ['B1'] },
  {
    name: 'named fragment at root',
    query: '{ ...F } fragment F on Query { bot(id: "B1") { id } }',
    bots: ['B1'],
  },
  {
    name: 'inline fragment at root',
    query: '{ ... on Query { bot(id: "B1") { id } } }',
    bots: ['B1'],
  },
  { name: 'untyped inline fragment', query: '{ ... { bot(id: "B1") { id } } }', bots: ['B1'] },
  {
    name: 'fragment in fragment in inline fragment',
    query:
      '{ ... on Query { ...A } } fragment A on Query { x { ...B } } fragment B on X { y(botID: "B1") }',
    bots: ['B1'],
  },
  {
    name: 'fragment spread twice with two bots',
    query: '{ a: bot(id: "B1") { ...F } b: bot(id: "B2") { ...F } } fragment F on Bot { id }',
    bots: ['B1', 'B2'],
  },
  {
    name: 'variable',
    query: 'query($b: BotID!) { bot(id: $b) { id } }',
    variables: { b: 'B1' },
    bots: ['B1'],
  },
  {
    name: 'variable default when absent',
    query: 'query($b: BotID! = "B1") { bot(id: $b) { id } }',
    bots: ['B1'],
  },
  {
    name: 'variable value wins over default',
    query: 'query($b: BotID = "B1") { bot(id: $b) { id } }',
    variables: { b: 'B2' },
    bots: ['B2'],
  },
  {
    name: 'variable neither supplied nor defaulted',
    query: 'query($b: BotID!) { bot(id: $b) { id } }',
    bots: [],
    unresolvable: true,
  },
  {
    name: 'undeclared variable not supplied',
    query: '{ createFlow(botID: $nope) { id } }',
    bots: [],
    unresolvable: true,
  },
  // null where a bot goes names a bot, refused at step 17 (not read as "no bot named")
  {
    name: 'explicit null variable names a bot',
    query: 'query($b: BotID) { x(botID: $b) }',
    variables: { b: null },
    bots: [null],
  },
  { name: 'literal null botID names a bot', query: '{ x(botID: null) }', bots: [null] },
  { name: 'bot(id: null) names a bot', query: '{ bot(id: null) { id } }', bots: [null] },
  {
    name: 'top-level botID null, unused, names a bot',
    query: '{ x }',
    variables: { botID: null },
    bots: [null],
  },
  {
    name: 'top-level botId null names a bot',
    query: '{ x }',
    variables: { botId: null },
    bots: [null],
  },
  {
    name: 'botID null used in bot(id:)',
    query: 'query($botID: BotID) { bot(id: $botID) { id } }',
    variables: { botID: null },
    bots: [null, null],
  },
  {
    name: 'BotID variable defaulted to null names a bot',
    query: 'query($b: BotID = null) { bot(id: $b) { id } }',
    bots: [null],
  },
  {
    name: 'null botID inside an input object literal',
    query: '{ createFlow(input: { botID: null, name: "n" }) { id } }',
    bots: [null],
  },
  {
    name: 'null botID inside an input object variable',
    query: 'query($in: FlowInput!) { createFlow(input: $in) { id } }',
    variables: { in: { botID: null, name: 'n' } },
    bots: [null],
  },
  {
    name: 'a botID key absent from the variables names no bot',
    query: '{ x }',
    variables: { other: null },
    bots: [],
  },
  {
    name: 'null under a key that is not a bot names nothing',
    query: '{ createFlow(input: { flowID: null, name: null }) { id } }',
    bots: [],
  },
  {
    name: 'top-level botID variable, unused',
    query: '{ x }',
    variables: { botID: 'B1' },
    bots: ['B1'],
  },
  {
    name: 'top-level botId variable, unused',
    query: '{ x }',
    variables: { botId: 'B1' },
    bots: ['B1'],
  },
  {
    name: 'top-level botID variable and a different bot in the text',
    query: '{ bot(id: "B2") { id } }',
    variables: { botID: 'B1' },
    bots: ['B1', 'B2'],
  },
  {
    name: 'nested input object literal',
    query: '{ m(input: { a: { botID: "B1" } }) }',
    bots: ['B1'],
  },
  {
    name: 'list of input objects literal',
    query: '{ m(items: [{ x: 1 }, { botId: "B1" }, { botID: "B2" }]) }',
    bots: ['B1', 'B2'],
  },
  {
    name: 'nested input object in a variable',
    query: 'query($i: In!) { m(input: $i) }',
    variables: { i: { deep: { botID: 'B1' } } },
    bots: ['B1'],
  },
  {
    name: 'list in a variable',
    query: 'query($i: [In!]!) { m(items: $i) }',
    variables: { i: [{ a: 1 }, { nested: [{ botID: 'B1' }] }] },
    bots: ['B1'],
  },
  {
    name: 'variable inside an input object literal',
    query: 'query($b: String) { m(input: { botID: $b }) }',
    variables: { b: 'B1' },
    bots: ['B1'],
  },
  {
    name: 'default of an input-object variable',
    query: 'query($i: In = { botID: "B1" }) { m(input: $i) }',
    bots: ['B1'],
  },
  {
    name: 'variable declared BotID under another argument name',
    query: 'query($x: BotID!) { m(owner: $x) }',
    variables: { x: 'B1' },
    bots: ['B1'],
  },
  {
    name: 'unicode escapes in the literal',
    query: '{ bot(id: "\\u0042\\u0031") { id } }',
    bots: ['B1'],
  },
  { name: 'block string literal', query: '{ bot(id: """B1""") { id } }', bots: ['B1'] },
  { name: 'escaped quote in the literal', query: '{ bot(id: "B\\"1") { id } }', bots: ['B"1'] },
  { name: 'directive argument', query: '{ a @custom(botID: "B1") }', bots: ['B1'] },
  { name: 'integer literal is kept raw', query: '{ bot(id: 42) { id } }', bots: [42] },
  { name: 'boolean literal is kept raw', query: '{ x(botID: true) }', bots: [true] },
  { name: 'enum literal is kept raw', query: '{ x(botID: SOMEBOT) }', bots: [{ enum: 'SOMEBOT' }] },
  {
    name: 'number variable is kept raw',
    query: 'query($b: BotID!) { bot(id: $b) { id } }',
    variables: { b: 42 },
    bots: [42],
  },
  {
    name: 'object top-level botID is kept raw',
    query: '{ x }',
    variables: { botID: { a: 1 } },
    bots: [{ a: 1 }],
  },
  {
    name: 'object literal where an id is expected',
    query: '{ bot(id: { x: "B1" }) { id } }',
    bots: [],
    unresolvable: true,
  },
  {
    name: 'list literal where an id is expected',
    query: '{ x(botID: ["B1"]) }',
    bots: [],
    unresolvable: true,
  },
  {
    name: 'object variable where an id is expected',
    query: 'query($b: BotID!) { bot(id: $b) { id } }',
    variables: { b: { id: 'B1' } },
    bots: [],
    unresolvable: true,
  },
  {
    name: 'list variable where an id is expected',
    query: 'query($b: [BotID!]!) { x(botID: $b) }',
    variables: { b: ['B1'] },
    bots: [],
    unresolvable: true,
  },
  {
    name: 'operationName selects the operation',
    query: 'query A { bot(id: "B1") { id } } query B { bot(id: "B2") { id } }',
    operationName: 'B',
    bots: ['B2'],
  },
  {
    name: 'same bot twice is one reference',
    query: '{ a: bot(id: "B1") { id } b: bot(id: "B1") { id } }',
    variables: { botID: 'B1' },
    bots: ['B1'],
  },
];

for (const c of CASES) {
  Deno.test(`bots: ${c.name}`, () => {
    const a = analysed(c.query, c.variables, c.operationName);
    assert.deepEqual(
      new Set(botValues(a).map((v) => JSON.stringify(v))),
      new Set(c.bots.map((v) => JSON.stringify(v))),
    );
    assert.equal(a.bots.length, c.bots.length);
    assert.equal(a.unresolvableBot !== null, c.unresolvable === true, a.unresolvableBot ?? '');
    const strings = c.bots.every((b) => typeof b === 'string');
    const refusal = botsAreStrings(a);
    assert.equal(refusal === null, strings && !c.unresolvable);
    if (refusal) assert.equal(refusal.code, 'ProxyMalformedQuery');
  });
}

Deno.test('bots: each argument reference names where it was found', () => {
  const a = analysed(
    'query($b: BotID!) { bot(id: "B1") { id } x(botID: $b) m(input: { botId: "B3" }) }',
    { b: 'B2', botID: 'B4' },
  );
  const where = new Map(a.bots.map((b) => [b.value, b.argument]));
  assert.equal(where.get('B1'), 'bot(id:)');
  assert.equal(where.get('B2'), 'botID');
  assert.equal(where.get('B3'), 'botId');
  assert.equal(where.get('B4'), 'variables.botID');
});

Deno.test('bots: a __proto__ key in JSON variables is walked like any other key', () => {
  const variables = JSON.parse(
    '{"i": {"__proto__": {"botID": "B1"}}, "__proto__": {"botID": "B2"}}',
  );
  const a = analysed('query($i: In!) { m(input: $i) }', variables);
  assert.deepEqual(botValues(a), ['B1']);
});

Deno.test('bots: batches are analysed per entry', () => {
  const r = analyzeEntries([
    { query: '{ bot(id: "B1") { id } }' },
    { query: 'query($b: BotID!) { bot(id: $b) { id } }', variables: { b: 'B2' } },
  ]);
  assert.ok(!isAnalysisFailure(r));
  assert.deepEqual(r.map(botValues), [['B1'], ['B2']]);
});

Deno.test('bots: one malformed entry fails the whole batch and names it', () => {
  const r = analyzeEntries([{ query: '{ bot(id: "B1") { id } }' }, { query: '{ bot(' }]);
  assert.ok(isAnalysisFailure(r));
  assert.equal(r.code, 'ProxyMalformedQuery');
  assert.match(r.message, /Operation 2 of the batch/);
});
