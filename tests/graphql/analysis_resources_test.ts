/**
 * Table-driven: every way a resource id can be named or hidden (SPEC "Resource fence": a
 * quoted 24-hex string under id / *ID / *Id / *IDs / *Ids or an extra name, never an
 * excluded one; literals, variables, defaults, nested input objects and lists; at most 500).
 */

import assert from 'node:assert/strict';
import { analyzeEntries, isAnalysisFailure } from '../../src/graphql/mod.ts';
import { analysed, failure, hex, resourceIds } from './helpers.ts';

const A = hex('a');
const B = hex('b');
const C = hex('c');

interface ResourceCase {
  name: string;
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
  /** Expected [id, argument] pairs, in any order. */
  resources: [string, string][];
}

const CASES: ResourceCase[] = [
  { name: 'literal under id', query: `{ flow(id: "${A}") { id } }`, resources: [[A, 'id']] },
  {
    name: 'upper case is normalised',
    query: `{ flow(id: "${A.toUpperCase()}") { id } }`,
    resources: [[A, 'id']],
  },
  {
    name: 'mixed case',
    query: `{ x(flowID: "AbAbAbAbAbAbAbAbAbAbAbAb") }`,
    resources: [['abababababababababababab', 'flowID']],
  },
  { name: 'suffix ID', query: `{ x(flowID: "${A}") }`, resources: [[A, 'flowID']] },
  { name: 'suffix Id', query: `{ x(flowGroupId: "${A}") }`, resources: [[A, 'flowGroupId']] },
  {
    name: 'suffix IDs, a list',
    query: `{ x(contactIDs: ["${A}", "${B}"]) }`,
    resources: [[A, 'contactIDs'], [B, 'contactIDs']],
  },
  { name: 'suffix Ids, a list', query: `{ x(flowIds: ["${A}"]) }`, resources: [[A, 'flowIds']] },
  {
    name: 'extra name attachment',
    query: `{ x(attachment: "${A}") }`,
    resources: [[A, 'attachment']],
  },
  { name: 'extra name before', query: `{ x(before: "${A}") }`, resources: [[A, 'before']] },
  {
    name: 'extra name documents',
    query: `{ x(documents: ["${A}"]) }`,
    resources: [[A, 'documents']],
  },
  { name: 'extra name files', query: `{ x(files: ["${A}"]) }`, resources: [[A, 'files']] },
  {
    name: 'extra name goodsServices',
    query: `{ x(goodsServices: ["${A}"]) }`,
    resources: [[A, 'goodsServices']],
  },
  { name: 'extra name images', query: `{ x(images: ["${A}"]) }`, resources: [[A, 'images']] },
  { name: 'extra name logo', query: `{ x(logo: "${A}") }`, resources: [[A, 'logo']] },
  {
    name: 'extra name setInheritFrom',
    query: `{ x(setInheritFrom: "${A}") }`,
    resources: [[A, 'setInheritFrom']],
  },
  {
    name: 'extra name wabaIDHint',
    query: `{ x(wabaIDHint: "${A}") }`,
    resources: [[A, 'wabaIDHint']],
  },
  { name: 'excluded botID', query: `{ x(botID: "${A}") }`, resources: [] },
  { name: 'excluded assigneeID', query: `{ x(assigneeID: "${A}") }`, resources: [] },
  { name: 'excluded targetWorkspaceID', query: `{ x(targetWorkspaceID: "${A}") }`, resources: [] },
  { name: 'excluded userID', query: `{ x(userID: "${A}") }`, resources: [] },
  { name: 'excluded workspaceID', query: `{ x(workspaceID: "${A}") }`, resources: [] },
  { name: 'bot(id:) is a bot, not a resource', query: `{ bot(id: "${A}") { id } }`, resources: [] },
  {
    name: 'workspace(id:) is declared WorkspaceID',
    query: `{ currentUser { workspace(id: "${A}") { id } } }`,
    resources: [],
  },
  {
    name: 'variable declared UserAccountID under a resource name',
    query: 'query($u: UserAccountID!) { x(memberID: $u) }',
    variables: { u: A },
    resources: [],
  },
  {
    name: 'variable declared FlowID',
    query: 'query($f: FlowID!) { x(flowID: $f) }',
    variables: { f: A },
    resources: [[A, 'flowID']],
  },
  {
    name: 'variable name does not matter, the argument does',
    query: 'query($title: FlowID!) { x(flowID: $title) }',
    variables: { title: A },
    resources: [[A, 'flowID']],
  },
  {
    name: 'a resource-named variable under a plain argument is not a resource',
    query: 'query($flowID: String!) { x(title: $flowID) }',
    variables: { flowID: A },
    resources: [],
  },
  { name: 'not a resource name', query: `{ x(title: "${A}") }`, resources: [] },
  { name: 'lower-case ids is not a resource name', query: `{ x(ids: ["${A}"]) }`, resources: [] },
  { name: '23 characters', query: `{ x(flowID: "${A.slice(1)}") }`, resources: [] },
  { name: '25 characters', query: `{ x(flowID: "${A}a") }`, resources: [] },
  { name: 'not hex', query: `{ x(flowID: "${'g'.repeat(24)}") }`, resources: [] },
  {
    name: 'nested input object keyed by the field name',
    query: `{ x(input: { flowID: "${A}", title: "${B}", meta: { id: "${C}" } }) }`,
    resources: [[A, 'flowID'], [C, 'id']],
  },
  {
    name: 'list of input objects',
    query: `{ x(rows: [{ blockId: "${A}" }, { blockId: "${B}" }]) }`,
    resources: [[A, 'blockId'], [B, 'blockId']],
  },
  {
    name: 'nested objects and lists in a variable',
    query: 'query($in: In!) { x(input: $in) }',
    variables: { in: { flowID: A, title: B, rows: [{ blockId: C }], deep: [[{ id: B }]] } },
    resources: [[A, 'flowID'], [C, 'blockId'], [B, 'id']],
  },
  {
    name: 'list variable under an IDs argument',
    query: 'query($l: [ContactID!]!) { x(contactIDs: $l) }',
    variables: { l: [A, B] },
    resources: [[A, 'contactIDs'], [B, 'contactIDs']],
  },
  {
    name: 'variable default',
    query: `query($f: FlowID = "${A}") { x(flowID: $f) }`,
    resources: [[A, 'flowID']],
  },
  {
    name: 'variable value wins over default',
    query: `query($f: FlowID = "${A}") { x(flowID: $f) }`,
    variables: { f: B },
    resources: [[B, 'flowID']],
  },
  {
    name: 'missing variable names nothing',
    query: 'query($f: FlowID) { x(flowID: $f) }',
    resources: [],
  },
  {
    name: 'unicode escapes',
    query: `{ x(flowID: "\\u0061${A.slice(1)}") }`,
    resources: [[A, 'flowID']],
  },
  { name: 'block string', query: `{ x(flowID: """${A}""") }`, resources: [[A, 'flowID']] },
  {
    name: 'block string with indentation lines',
    query: `{ x(flowID: """\n    ${A}\n  """) }`,
    resources: [[A, 'flowID']],
  },
  {
    name: 'integer literal of 24 digits',
    query: `{ x(flowID: ${'1'.repeat(24)}) }`,
    resources: [['1'.repeat(24), 'flowID']],
  },
  { name: 'enum-shaped literal', query: `{ x(flowID: ${A}) }`, resources: [[A, 'flowID']] },
  {
    name: 'fragments, aliases and directives',
    query: `query Main { f: flow(id: "${A}") { ...F } } ` +
      `fragment F on Flow { ... on Flow @mark(sourceID: "${C}") { b: block(blockID: "${B}") { id } } } ` +
      `query Other { x(flowID: "${hex('d')}") }`,
    operationName: 'Main',
    resources: [[A, 'id'], [B, 'blockID'], [C, 'sourceID']],
  },
  {
    name: 'the same id twice is one reference',
    query: `{ a: flow(id: "${A}") { id } b: x(flowID: "${A.toUpperCase()}") }`,
    resources: [[A, 'id']],
  },
];

for (const c of CASES) {
  Deno.test(`resources: ${c.name}`, () => {
    const a = analysed(c.query, c.variables, c.operationName);
    assert.deepEqual(
      new Set(a.resources.map((r) => `${r.id} ${r.argument}`)),
      new Set(c.resources.map(([id, arg]) => `${id} ${arg}`)),
    );
    assert.equal(a.resources.length, c.resources.length);
  });
}

function manyIds(n: number): string[] {
  return Array.from({ length: n }, (_, i) => i.toString(16).padStart(24, '0'));
}

Deno.test('resources: exactly 500 distinct ids pass', () => {
  const a = analysed('query($l: [ID!]!) { x(flowIDs: $l) }', {
    l: [...manyIds(500), ...manyIds(500)],
  });
  assert.equal(a.resources.length, 500);
});

Deno.test('resources: 501 distinct ids are refused', () => {
  const msg = failure({
    query: 'query($l: [ID!]!) { x(flowIDs: $l) }',
    variables: { l: manyIds(501) },
  });
  assert.match(msg, /more than 500 resource ids/);
});

Deno.test('resources: 501 literal ids are refused', () => {
  const list = manyIds(501).map((id) => `"${id}"`).join(', ');
  failure({ query: `{ x(flowIDs: [${list}]) }` });
});

Deno.test('resources: a batch naming 501 ids in total is refused', () => {
  const ids = manyIds(501);
  const r = analyzeEntries([
    { query: 'query($l: [ID!]!) { x(flowIDs: $l) }', variables: { l: ids.slice(0, 300) } },
    { query: 'query($l: [ID!]!) { x(flowIDs: $l) }', variables: { l: ids.slice(300) } },
  ]);
  assert.ok(isAnalysisFailure(r));
  assert.match(r.message, /more than 500 resource ids/);
});

Deno.test('resources: the limit is an option', () => {
  const q = 'query($l: [ID!]!) { x(flowIDs: $l) }';
  failure({ query: q, variables: { l: manyIds(3) } }, { limits: { maxResourcesPerRequest: 2 } });
  assert.equal(
    resourceIds(
      analysed(q, { l: manyIds(2) }, undefined, { limits: { maxResourcesPerRequest: 2 } }),
    ).length,
    2,
  );
});

Deno.test('resources: more than maxVariableNodesWalked values is a failure, not a guess', () => {
  const big = Array.from({ length: 10_001 }, () => 'x');
  const msg = failure({ query: 'query($l: [String!]!) { x(titles: $l) }', variables: { l: big } });
  assert.match(msg, /more than 10000 values/);
  const ok = analysed('query($l: [String!]!) { x(titles: $l) }', { l: big.slice(0, 9_000) });
  assert.equal(ok.resources.length, 0);
});

Deno.test('resources: deeply nested variables are walked without exhausting the stack', () => {
  let v: unknown = { flowID: A };
  for (let i = 0; i < 5_000; i++) v = [v];
  const a = analysed('query($v: In!) { x(input: $v) }', { v });
  assert.deepEqual(resourceIds(a), [A]);
});
