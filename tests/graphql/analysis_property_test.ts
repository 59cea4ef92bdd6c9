/**
 * Property tests (fast-check): no generated document naming a bot or a resource id, in any
 * combination of the shapes the analysis knows (literals with escapes or block strings,
 * variables, defaults, nested input objects and lists, aliases, named and inline
 * fragments, directives, decoy operations), comes out with it missing: the fences could
 * not be bypassed. Also: arbitrary input never throws.
 */

import assert from 'node:assert/strict';
import fc from 'fast-check';
import { analyzeEntry, botsAreStrings, isAnalysisFailure } from '../../src/graphql/mod.ts';

// ---------- building documents from a plan ----------

type LitKind = 'plain' | 'unicode' | 'block';
type BotBase =
  | 'botIDArg'
  | 'botIdArg'
  | 'botField'
  | 'mediaAdded'
  | 'refetch'
  | 'var'
  | 'varDefault'
  | 'topVar'
  | 'nestedLiteral'
  | 'nestedVar'
  | 'varInObject'
  | 'typedVar'
  | 'directive';
type ResourceBase =
  | 'literal'
  | 'var'
  | 'varDefault'
  | 'nestedLiteral'
  | 'nestedVar'
  | 'listLiteral';
type Wrapper = 'field' | 'alias' | 'inline' | 'inlineBare' | 'fragment' | 'noise';

interface Built {
  sel: string;
  frags: string[];
  defs: string[];
  vars: Record<string, unknown>;
  n: number;
}

function lit(v: string, kind: LitKind): string {
  if (kind === 'unicode') {
    return `"${[...v].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`;
  }
  if (kind === 'block' && /^[\w.:-][\w .:-]*[\w.:-]$|^[\w.:-]$/.test(v)) return `"""${v}"""`;
  return JSON.stringify(v);
}

function botBase(b: Built, base: BotBase, v: string, kind: LitKind): string {
  const n = ++b.n;
  switch (base) {
    case 'botIDArg':
      return `f${n}(botID: ${lit(v, kind)}) { id }`;
    case 'botIdArg':
      return `f${n}(x: 1, botId: ${lit(v, kind)})`;
    case 'botField':
      return `bot(id: ${lit(v, kind)}) { id }`;
    case 'mediaAdded':
      return `botInstagramMediaAdded(id: ${lit(v, kind)}) { id }`;
    case 'refetch':
      return `botInstagramRefetchLatestMedias(count: 1, id: ${lit(v, kind)}) { id }`;
    case 'var':
      b.defs.push(`$v${n}: BotID!`);
      b.vars[`v${n}`] = v;
      return `f${n}(botID: $v${n})`;
    case 'varDefault':
      b.defs.push(`$v${n}: BotID = ${lit(v, kind)}`);
      return `f${n}(botID: $v${n})`;
    case 'topVar':
      b.vars.botID = v;
      return `f${n} { id }`;
    case 'nestedLiteral':
      return `f${n}(input: { a: [{ b: 1 }, { c: { botID: ${lit(v, kind)} } }] })`;
    case 'nestedVar':
      b.defs.push(`$v${n}: In!`);
      b.vars[`v${n}`] = { x: [{ y: 2 }, { botId: v }] };
      return `f${n}(input: $v${n})`;
    case 'varInObject':
      b.defs.push(`$v${n}: String`);
      b.vars[`v${n}`] = v;
      return `f${n}(input: { deep: [{ botID: $v${n} }] })`;
    case 'typedVar':
      b.defs.push(`$v${n}: BotID!`);
      b.vars[`v${n}`] = v;
      return `f${n}(owner: $v${n})`;
    case 'directive':
      return `f${n} @d(botID: ${lit(v, kind)})`;
  }
}

const RESOURCE_NAMES = [
  'id',
  'flowID',
  'blockId',
  'contactIDs',
  'flowIds',
  'attachment',
  'wabaIDHint',
  'logo',
];

function resourceBase(
  b: Built,
  base: ResourceBase,
  id: string,
  kind: LitKind,
  name: string,
): string {
  const n = ++b.n;
  switch (base) {
    case 'literal':
      return `f${n}(${name}: ${lit(id, kind)}) { id }`;
    case 'listLiteral':
      return `f${n}(${name}: ["x", ${lit(id, kind)}])`;
    case 'var':
      b.defs.push(`$v${n}: ID!`);
      b.vars[`v${n}`] = id;
      return `f${n}(${name}: $v${n})`;
    case 'varDefault':
      b.defs.push(`$v${n}: ID = ${lit(id, kind)}`);
      return `f${n}(${name}: $v${n})`;
    case 'nestedLiteral':
      return `f${n}(input: { a: [{ b: 1 }, { ${name}: ${lit(id, kind)} }] })`;
    case 'nestedVar':
      b.defs.push(`$v${n}: In!`);
      b.vars[`v${n}`] = { x: [{ y: 2 }, { [name]: [id] }] };
      return `f${n}(input: $v${n})`;
  }
}

function wrap(b: Built, sel: string, w: Wrapper): string {
  const n = ++b.n;
  switch (w) {
    case 'field':
      return `g${n} { ${sel} }`;
    case 'alias':
      return `a${n}: g${n} { ${sel} }`;
    case 'inline':
      return `... on T${n} { ${sel} }`;
    case 'inlineBare':
      return `... { ${sel} }`;
    case 'fragment':
      b.frags.push(`fragment F${n} on T${n} { ${sel} }`);
      return `...F${n}`;
    case 'noise':
      return `n${n} { id } ${sel} z${n}(title: "x")`;
  }
}

function document(
  b: Built,
  parts: string[],
  decoy: boolean,
): { query: string; operationName?: string } {
  const defs = b.defs.length ? `(${b.defs.join(', ')})` : '';
  const extra = decoy
    ? ' query Decoy { bot(id: "decoy") { id } f(flowID: "dddddddddddddddddddddddd") }'
    : '';
  const query = `query Main${defs} { ${parts.join(' ')} } ${b.frags.join(' ')}${extra}`;
  return decoy ? { query, operationName: 'Main' } : { query };
}

// ---------- arbitraries ----------

const botValue = fc.stringMatching(/^[\w\-.: é"\\]{1,24}$/);
const hexId = fc.stringMatching(/^[0-9a-fA-F]{24}$/);
const litKind = fc.constantFrom<LitKind>('plain', 'unicode', 'block');
const wrappers = fc.array(
  fc.constantFrom<Wrapper>('field', 'alias', 'inline', 'inlineBare', 'fragment', 'noise'),
  { maxLength: 6 },
);
const botPart = fc.record({
  base: fc.constantFrom<BotBase>(
    'botIDArg',
    'botIdArg',
    'botField',
    'mediaAdded',
    'refetch',
    'var',
    'varDefault',
    'topVar',
    'nestedLiteral',
    'nestedVar',
    'varInObject',
    'typedVar',
    'directive',
  ),
  value: botValue,
  kind: litKind,
  wrappers,
});
const resourcePart = fc.record({
  base: fc.constantFrom<ResourceBase>(
    'literal',
    'var',
    'varDefault',
    'nestedLiteral',
    'nestedVar',
    'listLiteral',
  ),
  id: hexId,
  kind: litKind,
  name: fc.constantFrom(...RESOURCE_NAMES),
  wrappers,
});

const RUNS = { numRuns: 400 };

Deno.test('property: every bot named in any shape is in bots', () => {
  fc.assert(
    fc.property(fc.array(botPart, { minLength: 1, maxLength: 4 }), fc.boolean(), (parts, decoy) => {
      // Only one part may use the top-level botID variable (it is one key).
      const used = parts.filter((p, i) =>
        p.base !== 'topVar' || parts.findIndex((q) => q.base === 'topVar') === i
      );
      const b: Built = { sel: '', frags: [], defs: [], vars: {}, n: 0 };
      const sels = used.map((p) =>
        p.wrappers.reduce((s, w) => wrap(b, s, w), botBase(b, p.base, p.value, p.kind))
      );
      const entry = { ...document(b, sels, decoy), variables: b.vars };
      const a = analyzeEntry(entry);
      if (isAnalysisFailure(a)) throw new Error(`${a.message}\n${entry.query}`);
      assert.equal(a.unresolvableBot, null, entry.query);
      const values = new Set(a.bots.map((x) => x.value));
      for (const p of used) {
        assert.ok(values.has(p.value), `${p.value} missing from ${entry.query}`);
      }
      assert.ok(!values.has('decoy'), 'a decoy operation is not the one forwarded');
      assert.equal(botsAreStrings(a), null);
    }),
    RUNS,
  );
});

Deno.test('property: every resource id named in any shape is in resources', () => {
  fc.assert(
    fc.property(
      fc.array(resourcePart, { minLength: 1, maxLength: 4 }),
      fc.boolean(),
      (parts, decoy) => {
        const b: Built = { sel: '', frags: [], defs: [], vars: {}, n: 0 };
        const sels = parts.map((p) =>
          p.wrappers.reduce((s, w) => wrap(b, s, w), resourceBase(b, p.base, p.id, p.kind, p.name))
        );
        const entry = { ...document(b, sels, decoy), variables: b.vars };
        const a = analyzeEntry(entry);
        if (isAnalysisFailure(a)) throw new Error(`${a.message}\n${entry.query}`);
        const ids = new Set(a.resources.map((r) => r.id));
        for (const p of parts) {
          assert.ok(
            ids.has(p.id.toLowerCase()),
            `${p.id} missing from ${entry.query}`,
          );
        }
        assert.ok(!ids.has('d'.repeat(24)), 'a decoy operation is not the one forwarded');
      },
    ),
    RUNS,
  );
});

Deno.test('property: a bot variable that is not supplied is never silently dropped', () => {
  fc.assert(
    fc.property(botPart, (p) => {
      const b: Built = { sel: '', frags: [], defs: ['$missing: BotID!'], vars: {}, n: 0 };
      const sel = p.wrappers.reduce((s, w) => wrap(b, s, w), `f0(botID: $missing)`);
      const a = analyzeEntry(document(b, [sel], false));
      assert.ok(!isAnalysisFailure(a));
      assert.notEqual(a.unresolvableBot, null);
      assert.notEqual(botsAreStrings(a), null);
    }),
    RUNS,
  );
});

Deno.test('property: arbitrary entries never throw', () => {
  fc.assert(
    fc.property(
      fc.oneof(fc.string(), fc.stringMatching(/^[{}()[\]$:.@"#,\s\w!=\\]{0,80}$/)),
      fc.option(fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 })), {
        nil: undefined,
      }),
      fc.option(fc.string({ maxLength: 6 }), { nil: undefined }),
      (query, variables, operationName) => {
        const a = analyzeEntry({
          query,
          variables: variables as Record<string, unknown>,
          operationName,
        });
        assert.ok(
          isAnalysisFailure(a) ? a.code === 'ProxyMalformedQuery' : Array.isArray(a.rootFields),
        );
      },
    ),
    { numRuns: 1000 },
  );
});
