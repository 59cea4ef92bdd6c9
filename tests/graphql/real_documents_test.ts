/**
 * The app's real documents (data/upstream/operations/*.graphql, each operation extracted
 * with the fragments it uses): every one analyses, passes a registry built from them (by
 * exact text and by the normalised key), and passes the generated allowlist; the
 * generator's --check passes and the list matches facts.json.
 */

import assert from 'node:assert/strict';
import {
  allowlist,
  analyzeEntry,
  buildRegistry,
  GENERATED_ALLOWLIST,
  isAnalysisFailure,
  registryCheck,
  resolveAllowlist,
} from '../../src/graphql/mod.ts';
import { FACTS_FILE, realOperations, ROOT } from './fixtures.ts';

const OPS = realOperations();

Deno.test('real documents: 560 operations are extracted', () => {
  assert.equal(OPS.length, 560);
});

Deno.test('real documents: every operation analyses without failure', () => {
  for (const op of OPS) {
    for (const text of [op.printed, op.source]) {
      const a = analyzeEntry({ query: text });
      if (isAnalysisFailure(a)) assert.fail(`${op.file} ${op.name}: ${a.message}`);
      assert.equal(a.operationName, op.name);
      assert.ok(a.rootFields.length > 0);
      assert.equal(a.introspectionField, null);
    }
  }
});

Deno.test('real documents: every operation passes the generated allowlist', () => {
  const check = allowlist(resolveAllowlist({ enabled: true }));
  for (const op of OPS) {
    const a = analyzeEntry({ query: op.printed });
    assert.ok(!isAnalysisFailure(a));
    assert.equal(check(a), null, `${op.file} ${op.name}`);
  }
});

Deno.test('real documents: a registry built from them admits each by text and by key', () => {
  const registry = buildRegistry(OPS.map((o) => o.printed));
  assert.equal(registry.size, 560);
  for (const op of OPS) {
    assert.equal(registry.lookup(op.printed)?.text, op.printed);
    // The file's own formatting (comments, other spacing) finds the same record.
    const r = registryCheck(registry, {
      query: op.source,
      operationName: 'Whatever',
      variables: { a: 1 },
    });
    assert.ok(!('code' in r), `${op.file} ${op.name}`);
    assert.equal(r.entry.query, op.printed);
    assert.equal(r.entry.operationName, op.name);
    assert.deepEqual(r.entry.variables, { a: 1 });
  }
});

Deno.test('real documents: the generated allowlist has the 364 names of facts.json, sorted', () => {
  const facts = JSON.parse(Deno.readTextFileSync(FACTS_FILE));
  const names: string[] = facts.allowedRootFields.names;
  assert.equal(GENERATED_ALLOWLIST.length, 364);
  assert.deepEqual(new Set(GENERATED_ALLOWLIST), new Set(names));
  assert.deepEqual([...GENERATED_ALLOWLIST], [...GENERATED_ALLOWLIST].sort());
});

Deno.test('real documents: the generator --check passes', async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ['run', '--allow-read', '--allow-env=NODE_ENV', 'scripts/gen_allowlist.ts', '--check'],
    cwd: ROOT,
    stdout: 'piped',
    stderr: 'piped',
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.match(new TextDecoder().decode(out.stdout), /up to date/);
});
