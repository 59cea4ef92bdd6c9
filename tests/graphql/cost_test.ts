/**
 * The cost measures (src/graphql/cost.ts) table-driven, and the defaults of the cost limits
 * (src/config/defaults.ts) against every document the app ships (data/upstream/operations):
 * each passes with its real variables.
 */
import assert from 'node:assert/strict';
import { appOperations, WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { DEFAULTS } from '../../src/config/defaults.ts';
import { type Analysis, analyzeEntry } from '../../src/graphql/mod.ts';

function cost(query: string, variables?: Record<string, unknown>): Analysis['cost'] {
  const a = analyzeEntry({ query, variables });
  assert.ok(!('code' in a), JSON.stringify(a));
  return a.cost;
}

const CASES: { query: string; expected: Partial<Analysis['cost']> }[] = [
  { query: '{ a }', expected: { depth: 1, rootFields: 1, aliases: 0, directives: 0, tokens: 3 } },
  { query: '{ a { b { c } } }', expected: { depth: 3, tokens: 9 } },
  { query: '{ x: a y: a z: b }', expected: { rootFields: 2, aliases: 3 } },
  { query: '{ a @include(if: true) b @skip(if: false) }', expected: { directives: 2 } },
  {
    query: 'query Q { ...F } fragment F on Query { a { b } c }',
    expected: { rootFields: 2, depth: 3 },
  },
  { query: '# a comment\n{ a, b }', expected: { tokens: 4 } },
];

for (const c of CASES) {
  Deno.test(`cost: ${c.query.replace(/\n/g, ' ')}`, () => {
    const measured = cost(c.query);
    for (const [k, v] of Object.entries(c.expected)) {
      assert.equal(measured[k as keyof typeof measured], v, k);
    }
  });
}

Deno.test('cost: every shipped document is within the default limits', () => {
  const limits = {
    depth: DEFAULTS.graphqlMaxDepth,
    aliases: DEFAULTS.graphqlMaxAliases,
    rootFields: DEFAULTS.graphqlMaxRootFields,
    directives: DEFAULTS.graphqlMaxDirectives,
    tokens: DEFAULTS.graphqlMaxTokens,
  };
  const documents = appOperations();
  assert.ok(documents.length > 500, 'the real documents are read');
  for (const op of documents) {
    const measured = cost(op.query, op.variables(WORLD_IDS.bot1));
    for (const [k, max] of Object.entries(limits)) {
      const value = measured[k as keyof typeof measured];
      assert.ok(value <= max, `${op.name}: ${k} ${value} over ${max}`);
    }
  }
});
