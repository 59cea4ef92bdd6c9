/**
 * The documents against the code: every variable the code reads (src/config/, hosts/) is in
 * `.env.example` and the reverse; every one of them has its line in docs/configuration.md; every
 * variable a document names (README.md, docs/*.md) exists in both; every refusal code of the
 * registry (src/http/error_codes.ts) has its row in docs/routes.md with its status, and every row
 * names a code of the registry.
 */
import assert from 'node:assert/strict';
import { ERROR_STATUS } from '../../src/http/error_codes.ts';
import { codeVariables, exampleVariables, userDocs, variablesNamed } from './docs.ts';

const code = codeVariables();
const example = exampleVariables();
const docs = userDocs();
const known = new Set([...code.keys(), ...example]);

Deno.test('the scan finds the variables of the code and of .env.example', () => {
  for (const name of ['SVC_TOKEN', 'GRAPHQL_MAX_DEPTH', 'PUBLISHING_SECRET', 'HOST', 'PORT']) {
    assert.ok(code.has(name), `${name} found in the code`);
    assert.ok(example.has(name), `${name} found in .env.example`);
  }
  assert.ok(code.size >= 40, `${code.size} variables in the code`);
});

Deno.test('every variable the code reads is in .env.example, and the reverse', () => {
  const missing = [...code].filter(([name]) => !example.has(name)).map(([n, file]) =>
    `${n} (${file})`
  );
  assert.deepEqual(missing, [], 'read by the code, not in .env.example');
  const unread = [...example].filter((name) => !code.has(name));
  assert.deepEqual(unread, [], 'in .env.example, read nowhere in src/config/ or hosts/');
});

Deno.test('docs/configuration.md has a line for every variable', () => {
  const configuration = docs.find((d) => d.path === 'docs/configuration.md')!;
  const documented = variablesNamed(configuration, known);
  const undocumented = [...known].filter((name) => !documented.has(name));
  assert.deepEqual(undocumented, [], 'variables without a line in docs/configuration.md');
});

Deno.test('every variable a document names exists in the code and in .env.example', () => {
  const unknown: string[] = [];
  for (const doc of docs) {
    for (const name of variablesNamed(doc, known)) {
      if (!code.has(name) || !example.has(name)) unknown.push(`${doc.path}: ${name}`);
    }
  }
  assert.deepEqual(unknown, []);
});

/** The `| \`Code\` | status |` rows of docs/routes.md: code to its status column. */
function documentedCodes(): Map<string, string> {
  const routes = docs.find((d) => d.path === 'docs/routes.md')!.text;
  const rows = new Map<string, string>();
  for (const m of routes.matchAll(/^\|\s*`([A-Za-z]+)`\s*\|\s*([^|]+?)\s*\|/gm)) {
    if (/^\d{3}$|^in band$/.test(m[2])) rows.set(m[1], m[2]);
  }
  return rows;
}

Deno.test('docs/routes.md lists every refusal code with its status', () => {
  const rows = documentedCodes();
  assert.ok(rows.size > 50, `${rows.size} rows read`);
  const wrong: string[] = [];
  for (const [name, status] of Object.entries(ERROR_STATUS)) {
    const expected = status === null ? 'in band' : String(status);
    if (rows.get(name) !== expected) wrong.push(`${name}: ${rows.get(name)} (code: ${expected})`);
  }
  assert.deepEqual(wrong, []);
  const extra = [...rows.keys()].filter((name) => !(name in ERROR_STATUS));
  assert.deepEqual(extra, [], 'rows naming codes the registry does not have');
});

Deno.test('no issue numbers or before/after history in the user-facing documents', () => {
  const found: string[] = [];
  for (const doc of docs) {
    for (const m of doc.text.matchAll(/\bissues? \d+|\bfiled\b|->\s*now\b/gi)) {
      found.push(`${doc.path}: ${m[0]}`);
    }
  }
  assert.deepEqual(found, []);
});
