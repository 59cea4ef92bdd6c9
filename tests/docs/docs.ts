/**
 * What the docs tests read: the user-facing documents (README.md and docs/*.md), their fenced
 * blocks, the variables they name, and the variables the code reads (src/config/ and hosts/) and
 * `.env.example` lists. Everything is read from the files, so a variable another change adds to
 * the code or `.env.example` only needs its line in docs/configuration.md.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The repository root (absolute, with a trailing slash). */
export const ROOT = new URL('../../', import.meta.url).pathname;

/** One user-facing document. */
export interface Doc {
  /** Path from the root, e.g. 'docs/routes.md'. */
  path: string;
  text: string;
}

/** A fenced block: its info string's first word ('sh', 'ts', '' ...), its text, where it is. */
export interface Block {
  lang: string;
  text: string;
  doc: string;
  line: number;
}

/** README.md and every docs/*.md. */
export function userDocs(): Doc[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs].map((path) => ({
    path,
    text: readFileSync(join(ROOT, path), 'utf8'),
  }));
}

/** The fenced blocks of `doc` (``` fences, in order). */
export function blocksOf(doc: Doc): Block[] {
  const blocks: Block[] = [];
  const lines = doc.text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*```(\S*)/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^\s*```\s*$/.test(lines[i]); i++) body.push(lines[i]);
    const indent = /^\s*/.exec(lines[start])![0].length;
    blocks.push({
      lang: open[1],
      text: body.map((l) => l.slice(Math.min(indent, /^\s*/.exec(l)![0].length))).join('\n'),
      doc: doc.path,
      line: start + 1,
    });
  }
  return blocks;
}

/** The text of `doc` outside its fenced blocks. */
export function prose(doc: Doc): string {
  return doc.text.replace(/^\s*```[\s\S]*?^\s*```\s*$/gm, '');
}

/** An environment variable's shape: upper case, digits, underscores. */
export const VARIABLE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;

/**
 * Upper-case names with an underscore the documents quote that are not the gateway's environment
 * variables: exported constants of the client library, and what glibc and Deno read for
 * themselves (set by `deno task serve`, docs/operations.md "Memory").
 */
export const NOT_VARIABLES = new Set([
  'SESSION_ERROR_CODES',
  'AUTH_ERROR_CODES',
  'PERMISSION_DENIED_CODES',
  'CLIENT_DEFAULTS',
  'MALLOC_ARENA_MAX',
  'DENO_V8_FLAGS',
  // read by the tests and the benchmark, never by the product (docs/development.md)
  'SVC_TEST_VITE',
  'SVC_BENCH_BASELINE',
  'SVC_BENCH_VARIANTS',
]);

/**
 * The variables `doc` names: backticked names (alone or as `NAME=value`) with an underscore, or
 * without one when `known` has them, and the `NAME=value` assignments that start a line of its
 * fenced blocks (a .env line, or a command's environment).
 */
export function variablesNamed(doc: Doc, known: Set<string>): Set<string> {
  const names = new Set<string>();
  const consider = (name: string) => {
    if (!VARIABLE.test(name) || NOT_VARIABLES.has(name)) return;
    if (name.includes('_') || known.has(name)) names.add(name);
  };
  for (const m of doc.text.matchAll(/`([A-Z][A-Z0-9_]*)(?:=[^`]*)?`/g)) consider(m[1]);
  for (const block of blocksOf(doc)) {
    for (const line of block.text.split('\n')) {
      // assignments at the start of a line: a .env line, or a command's environment
      const lead = /^\s*(?:export\s+)?((?:[A-Z][A-Z0-9_]*=(?:<[^>]*>|\S*)\s*)+)/.exec(line);
      for (const m of lead?.[1].matchAll(/([A-Z][A-Z0-9_]*)=/g) ?? []) consider(m[1]);
    }
  }
  return names;
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? walk(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * The variables the code reads, by file: `env.NAME` and `env['NAME']` anywhere in src/config/
 * and hosts/, and quoted upper-case names with an underscore in src/config/ (the defaults table's
 * variable columns, such as CEILING_OPTIONS and tokenEnv).
 */
export function codeVariables(): Map<string, string> {
  const found = new Map<string, string>();
  const files = [...walk(join(ROOT, 'src/config')), ...walk(join(ROOT, 'hosts'))];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const where = relative(ROOT, file);
    for (
      const m of text.matchAll(/\benv(?:\.([A-Z][A-Z0-9_]*)\b|\[\s*'([A-Z][A-Z0-9_]*)'\s*\])/g)
    ) {
      found.set(m[1] ?? m[2], where);
    }
    if (!where.startsWith('src/config/')) continue;
    for (const m of text.matchAll(/'([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)'/g)) found.set(m[1], where);
  }
  return found;
}

/** The variables `.env.example` lists (`# NAME=` or `NAME=` at the start of a line). */
export function exampleVariables(): Set<string> {
  const text = readFileSync(join(ROOT, '.env.example'), 'utf8');
  return new Set([...text.matchAll(/^#?\s?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]));
}

/** The deno.json task names. */
export function taskNames(): Set<string> {
  const json = JSON.parse(readFileSync(join(ROOT, 'deno.json'), 'utf8'));
  return new Set(Object.keys(json.tasks));
}

/**
 * The npm package's entries as scripts/build_npm.ts declares them: import specifier
 * ('svc-gateway', 'svc-gateway/node', ...) to its source file (absolute path).
 */
export function packageEntries(): Map<string, string> {
  const text = readFileSync(join(ROOT, 'scripts/build_npm.ts'), 'utf8');
  const table = /const EXPORTS[^{]*\{([^}]*)\}/.exec(text)![1];
  const entries = new Map<string, string>();
  for (const m of table.matchAll(/'(\.[^']*)':\s*'([^']+)'/g)) {
    const specifier = m[1] === '.' ? 'svc-gateway' : `svc-gateway${m[1].slice(1)}`;
    entries.set(specifier, join(ROOT, m[2]));
  }
  return entries;
}

/** True when `path` (from the root) exists. */
export function exists(path: string): boolean {
  return existsSync(join(ROOT, path));
}
