/**
 * Table-driven: operation selection, root fields, introspection, slow fields, account
 * scope, and the documents the analysis refuses to guess about (SPEC steps 11-16).
 */

import assert from 'node:assert/strict';
import { analyzeEntry, type GraphQLEntry } from '../../src/graphql/mod.ts';
import { analysed, failure, hex } from './helpers.ts';

Deno.test('operation: the single operation is picked; the name comes from the document', () => {
  const a = analysed('mutation Rename { x }', undefined, undefined);
  assert.equal(a.operationType, 'mutation');
  assert.equal(a.operationName, 'Rename');
  const anon = analysed('{ x }');
  assert.equal(anon.operationType, 'query');
  assert.equal(anon.operationName, null);
  assert.equal(analysed('subscription S { x }').operationType, 'subscription');
});

Deno.test('operation: operationName picks among several', () => {
  const q = 'query A { a } mutation B { b }';
  const b = analysed(q, undefined, 'B');
  assert.equal(b.operationName, 'B');
  assert.equal(b.operationType, 'mutation');
  assert.deepEqual(b.rootFields, ['b']);
  assert.deepEqual(analysed(q, undefined, 'A').rootFields, ['a']);
});

Deno.test('operation: a null or empty operationName with one operation picks it', () => {
  assert.equal(analyzeEntryName({ query: 'query A { a }', operationName: null }), 'A');
  assert.equal(analyzeEntryName({ query: 'query A { a }', operationName: '' }), 'A');
});

Deno.test('operation: one operation runs whatever operationName names; the name forwarded is its own', () => {
  const cases: Array<[GraphQLEntry, string | null]> = [
    [{ query: 'query A { a }', operationName: 'B' }, 'A'],
    [{ query: 'query A { a }', operationName: 'A' }, 'A'],
    [{ query: 'mutation M { m }', operationName: 'Other' }, 'M'],
    [{ query: '{ a }', operationName: 'Named' }, null],
    [{ query: 'query A { ...F } fragment F on Q { a }', operationName: 'F' }, 'A'],
  ];
  for (const [entry, expected] of cases) {
    assert.equal(analyzeEntryName(entry), expected, JSON.stringify(entry));
  }
});

function analyzeEntryName(entry: GraphQLEntry): string | null {
  const a = analyzeEntry(entry);
  assert.ok(!('code' in a));
  return a.operationName;
}

interface FailCase {
  name: string;
  entry: GraphQLEntry;
  message: RegExp;
}

const deep = (n: number) => '{ a '.repeat(n) + '}'.repeat(n);

const FAILURES: FailCase[] = [
  { name: 'does not parse', entry: { query: '{ bot(' }, message: /does not parse/ },
  { name: 'empty text', entry: { query: '' }, message: /does not parse/ },
  {
    name: 'several operations, no name',
    entry: { query: 'query A { a } query B { b }' },
    message: /several operations/,
  },
  {
    name: 'several operations, name not present',
    entry: { query: 'query A { a } query C { c }', operationName: 'B' },
    message: /none named B/,
  },
  { name: 'only fragments', entry: { query: 'fragment F on Q { a }' }, message: /no operation/ },
  {
    name: 'anonymous beside named',
    entry: { query: '{ a } query B { b }', operationName: 'B' },
    message: /anonymous/,
  },
  {
    name: 'operation defined twice',
    entry: { query: 'query A { a } query A { b }', operationName: 'A' },
    message: /twice/,
  },
  {
    name: 'fragment defined twice',
    entry: { query: '{ ...F } fragment F on Q { a } fragment F on Q { b }' },
    message: /twice/,
  },
  {
    name: 'type definitions',
    entry: { query: '{ a } type T { a: Int }' },
    message: /only operations and fragments/,
  },
  { name: 'unknown fragment', entry: { query: '{ ...Nope }' }, message: /Unknown fragment Nope/ },
  {
    name: 'unknown fragment nested',
    entry: { query: '{ a { ...F } } fragment F on A { b { ...G } }' },
    message: /Unknown fragment G/,
  },
  {
    name: 'fragment cycle',
    entry: { query: '{ ...A } fragment A on Q { ...B } fragment B on Q { ...A }' },
    message: /spreads itself/,
  },
  {
    name: 'fragment self-spread',
    entry: { query: '{ a { ...A } } fragment A on T { b { ...A } }' },
    message: /spreads itself/,
  },
  { name: 'too deep', entry: { query: deep(257) }, message: /deeper than 256/ },
  {
    name: 'too deep through fragments',
    entry: {
      query: `{ ...F0 } ${
        Array.from({ length: 200 }, (_, i) => `fragment F${i} on Q { a { ...F${i + 1} } }`).join(
          ' ',
        )
      } fragment F200 on Q { a }`,
    },
    message: /deeper than 256/,
  },
  {
    name: 'query not a string',
    entry: { query: 42 as unknown as string },
    message: /query must be a string/,
  },
  {
    name: 'operationName not a string',
    entry: { query: '{ a }', operationName: 3 as unknown as string },
    message: /operationName/,
  },
  {
    name: 'variables an array',
    entry: { query: '{ a }', variables: [] as unknown as Record<string, unknown> },
    message: /variables/,
  },
  {
    name: 'variables a string',
    entry: { query: '{ a }', variables: 'x' as unknown as Record<string, unknown> },
    message: /variables/,
  },
];

for (const c of FAILURES) {
  Deno.test(`failure: ${c.name}`, () => {
    assert.match(failure(c.entry), c.message);
  });
}

Deno.test('failure: a parse failure is cached and answered the same twice', () => {
  assert.equal(failure({ query: '{ nope(' }), failure({ query: '{ nope(' }));
});

Deno.test('depth: 256 levels pass', () => {
  assert.deepEqual(analysed(deep(255)).rootFields, ['a']);
});

Deno.test('depth: a fragment bomb (each fragment spread twice) is analysed in linear time', () => {
  const n = 40;
  const frags = Array.from(
    { length: n },
    (_, i) => `fragment F${i} on Q { a: x { ...F${i + 1} } b: y { ...F${i + 1} } }`,
  ).join(' ');
  const a = analysed(`{ ...F0 } ${frags} fragment F${n} on Q { leaf(flowID: "${hex('a')}") }`);
  assert.equal(a.resources.length, 1);
  assert.deepEqual(a.rootFields, ['x', 'y']);
});

Deno.test('root fields: aliases ignored, fragments followed, distinct, in order', () => {
  const a = analysed(
    '{ one: bot(id: "B") { id } ...F ... on Query { currentUser { id } } two: bot(id: "B") { id } } ' +
      'fragment F on Query { ...G flows { id } } fragment G on Query { createFlow(botID: "B") { id } }',
  );
  assert.deepEqual(a.rootFields, ['bot', 'createFlow', 'flows', 'currentUser']);
});

Deno.test('root fields: a nested field with a root-field name is not a root field', () => {
  assert.deepEqual(analysed('{ a { logout } }').rootFields, ['a']);
});

const INTROSPECTION: [string, string, string | null][] = [
  ['__schema at root', '{ __schema { types { name } } }', '__schema'],
  ['__type behind an alias', '{ t: __type(name: "Bot") { name } }', '__type'],
  [
    '__schema through a fragment',
    '{ ...F } fragment F on Query { __schema { queryType { name } } }',
    '__schema',
  ],
  ['__type nested', '{ bot(id: "B") { __type(name: "X") { name } } }', '__type'],
  ['__typename is fine', '{ __typename bot(id: "B") { __typename } }', null],
];

for (const [name, query, field] of INTROSPECTION) {
  Deno.test(`introspection: ${name}`, () => {
    assert.equal(analysed(query).introspectionField, field);
  });
}

const SLOW: [string, string, boolean][] = [
  ['image', 'mutation { instagramAccountPublishImage(botID: "B", input: {}) { id } }', true],
  [
    'reel behind an alias',
    'mutation { r: instagramAccountPublishReel(botID: "B", input: {}) { id } }',
    true,
  ],
  [
    'story through a fragment',
    'mutation { ...F } fragment F on Mutation { instagramAccountPublishStory(botID: "B", input: {}) { id } }',
    true,
  ],
  ['carousel', 'mutation { instagramAccountPublishCarousel(botID: "B", input: {}) { id } }', true],
  ['ordinary', 'mutation { instagramAccountRefetchLatestMedias(botID: "B") }', false],
];

for (const [name, query, slow] of SLOW) {
  Deno.test(`slow: ${name}`, () => {
    assert.equal(analysed(query).slow, slow);
  });
}

interface ScopeCase {
  name: string;
  query: string;
  variables?: Record<string, unknown>;
  blocked: string | null;
}

const C = hex('c');

const SCOPE: ScopeCase[] = [
  {
    name: 'id, botRole, __typename',
    query: '{ currentUser { id __typename botRole(botID: "B") { roleTypeV2 } } }',
    blocked: null,
  },
  { name: 'email', query: '{ currentUser { id email } }', blocked: 'currentUser.email' },
  {
    name: 'email behind aliases',
    query: '{ me: currentUser { e: email } }',
    blocked: 'currentUser.email',
  },
  {
    name: 'fragment spread there',
    query: '{ currentUser { ...Me } } fragment Me on CurrentUserAccount { id }',
    blocked: 'currentUser { ...Me }',
  },
  {
    name: 'inline fragment with allowed fields',
    query: '{ currentUser { ... on CurrentUserAccount { id } } }',
    blocked: null,
  },
  {
    name: 'inline fragment hiding email',
    query: '{ currentUser { ... on CurrentUserAccount { email } } }',
    blocked: 'currentUser.email',
  },
  {
    name: 'currentUser inside a root fragment',
    query: '{ ...Q } fragment Q on Query { currentUser { workspaces { id } } }',
    blocked: 'currentUser.workspaces',
  },
  {
    name: 'workspace(id:) under currentUser',
    query: `{ currentUser { workspace(id: "${C}") { id } } }`,
    blocked: 'currentUser.workspace',
  },
  {
    name: 'coworkerConversationsConnection with a bot',
    query:
      'query($b: BotID) { currentUser { coworkerConversationsConnection(botID: $b, first: 5) { edges { node { id } } } } }',
    variables: { b: 'B' },
    blocked: null,
  },
  {
    name: 'coworkerConversationsConnection with a null bot',
    query:
      'query($b: BotID) { currentUser { coworkerConversationsConnection(botID: $b, first: 5) { edges { node { id } } } } }',
    variables: { b: null },
    blocked: 'currentUser.coworkerConversationsConnection',
  },
  {
    name: 'coworkerConversationsConnection without the argument',
    query:
      '{ currentUser { coworkerConversationsConnection(first: 5) { edges { node { id } } } } }',
    blocked: 'currentUser.coworkerConversationsConnection',
  },
  {
    name: 'coworkerGetConversation with a resource id',
    query: `{ currentUser { coworkerGetConversation(id: "${C}") { id } } }`,
    blocked: null,
  },
  {
    name: 'coworkerGetConversation with a resource id variable',
    query: 'query($c: ID!) { currentUser { coworkerGetConversation(id: $c) { id } } }',
    variables: { c: C },
    blocked: null,
  },
  {
    name: 'coworkerGetConversation with a non-id',
    query: '{ currentUser { coworkerGetConversation(id: "latest") { id } } }',
    blocked: 'currentUser.coworkerGetConversation',
  },
  {
    name: 'bot fields are still checked under an allowed currentUser field',
    query: `{ currentUser { coworkerGetConversation(id: "${C}") { bot { invites { id } } } } }`,
    blocked: 'invites',
  },
  { name: 'bot invites', query: '{ bot(id: "B") { id invites { id } } }', blocked: 'invites' },
  {
    name: 'bot apiToken through a fragment',
    query: '{ bot(id: "B") { ...F } } fragment F on Bot { apiToken }',
    blocked: 'apiToken',
  },
  {
    name: 'bot apiToken in a mutation answer',
    query: 'mutation { createFlow(botID: "B") { a: apiToken } }',
    blocked: 'apiToken',
  },
  {
    name: 'bot workspace id and title',
    query: '{ bot(id: "B") { workspace { id title __typename } } }',
    blocked: null,
  },
  {
    name: 'bot workspace members',
    query: '{ bot(id: "B") { workspace { id members { id } } } }',
    blocked: 'workspace.members',
  },
  {
    name: 'bot workspace invites through fragments',
    query:
      '{ bot(id: "B") { ...F } } fragment F on Bot { workspace { ...W } } fragment W on Workspace { id ... on Workspace { invites { id } } }',
    blocked: 'workspace.invites',
  },
  { name: 'plain bot read', query: '{ bot(id: "B") { id title flows { id } } }', blocked: null },
];

for (const c of SCOPE) {
  Deno.test(`account scope: ${c.name}`, () => {
    const a = analysed(c.query, c.variables);
    assert.equal(a.accountScope.blocked, c.blocked !== null);
    assert.equal(a.accountScope.field, c.blocked ?? undefined);
  });
}

Deno.test('account scope: the same fragment is judged per place it is spread', () => {
  const frag = 'fragment W on Node { id members { id } }';
  const fine = analysed(`{ bot(id: "B") { ...W } } ${frag}`);
  assert.equal(fine.accountScope.blocked, false);
  for (const body of ['...W workspace { ...W }', 'workspace { ...W } ...W']) {
    const a = analysed(`{ bot(id: "B") { ${body} } } ${frag}`);
    assert.deepEqual(a.accountScope, { blocked: true, field: 'workspace.members' });
  }
});
