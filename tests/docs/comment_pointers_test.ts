/**
 * Comments state the rule and point at where it is written (docs/development.md "Commands"): a
 * reader of the code has no tracker, so no file in src/, hosts/, scripts/, tests/, supabase/ or
 * the user-facing documents cites a ticket number, and every pointer of the form
 * <file>.md "<heading>" (or a bare README "<heading>") names a file that exists and a heading
 * it has.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from './docs.ts';

const FOLDERS = ['src', 'hosts', 'scripts', 'tests', 'supabase', 'docs', 'examples'];
const TOP_FILES = ['README.md', 'mod.ts'];
const SKIP = new Set(['node_modules', 'npm', 'dist', 'dist-bin', '.git']);
const SELF = 'tests/docs/comment_pointers_test.ts';
const TEXT = /\.(ts|mts|mjs|js|md|sql|sh|json)$/;

/**
 * A ticket citation: the word, then a number (with a space, a dash, '#' or nothing between), or
 * the plural before numbers joined by a comma or "and" (a list; "issues 0 rows" is the verb).
 */
const TICKET = new RegExp(
  String
    .raw`\b(issue|ticket)[ \t]*[-#]?[ \t]*\d+|\b(issues|tickets)[ \t]+\d+[ \t]*(,|and)[ \t]*\d+`,
  'i',
);

/** Every text file under the checked folders, as paths from the root. */
function sourceFiles(): string[] {
  const out: string[] = [...TOP_FILES];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(ROOT, dir))) {
      if (SKIP.has(name)) continue;
      const path = `${dir}/${name}`;
      if (statSync(join(ROOT, path)).isDirectory()) walk(path);
      else if (TEXT.test(name)) out.push(path);
    }
  };
  for (const folder of FOLDERS) walk(folder);
  return out;
}

/** `path:line: text` of every line citing a ticket. */
export function ticketCitations(path: string, text: string): string[] {
  return text.split('\n').flatMap((line, i) =>
    TICKET.test(line) ? [`${path}:${i + 1}: ${line.trim()}`] : []
  );
}

/** The headings of a markdown text, without their leading #s. */
function headings(text: string): string[] {
  return text.split('\n').filter((l) => /^#{1,6} /.test(l)).map((l) =>
    l.replace(/^#+ /, '').trim()
  );
}

/** A pointer: the markdown file as written, and the quoted heading. */
export interface Pointer {
  file: string;
  heading: string;
}

/**
 * Each `<file>.md "<heading>"` pointer of a text (`docs/operations.md "Faults"`,
 * `src/routes/publishing/README.md "The post"`, a bare `README "Metrics"`), read across a line
 * break: comment markers `*`, `//`, `--` dropped, spaces collapsed.
 */
export function pointers(text: string): Pointer[] {
  const flat = text.replace(/\n\s*(\*(?!\/)|\/\/|--)?\s*/g, ' ');
  return [...flat.matchAll(/(?<![\w./-])((?:[\w-]+\/)*[\w-]+\.md|README) "([^"]+)"/g)].map((m) => ({
    file: m[1] === 'README' ? 'README.md' : m[1],
    heading: m[2].replace(/\s+/g, ' ').trim(),
  }));
}

/** Where a pointer of `from` leads: from the root, else beside `from`; null when nowhere. */
function target(from: string, file: string): string | null {
  for (const path of [file, join(dirname(from), file)]) {
    if (existsSync(join(ROOT, path))) return path;
  }
  return null;
}

Deno.test('no comment, string or document cites a ticket number', () => {
  const found = sourceFiles().flatMap((path) =>
    ticketCitations(path, readFileSync(join(ROOT, path), 'utf8'))
  );
  assert.deepEqual(found, [], 'state the rule and point at SPEC or docs/ instead');
});

Deno.test('every <file>.md "<heading>" pointer names a file and one of its headings', () => {
  const broken: string[] = [];
  let seen = 0;
  for (const path of sourceFiles().filter((p) => p !== SELF)) {
    for (const { file, heading } of pointers(readFileSync(join(ROOT, path), 'utf8'))) {
      seen++;
      const found = target(path, file);
      if (found === null) broken.push(`${path}: ${file} does not exist`);
      else if (
        !headings(readFileSync(join(ROOT, found), 'utf8')).some((h) => h.startsWith(heading))
      ) {
        broken.push(`${path}: ${found} has no heading "${heading}"`);
      }
    }
  }
  assert.deepEqual(broken, []);
  assert.ok(seen > 50, `only ${seen} pointers read: the pattern no longer matches them`);
});

Deno.test('the checks catch what they are for', () => {
  const cite = ['iss', 'ue 23'].join('');
  assert.equal(ticketCitations('a.ts', `// a rule (${cite})`).length, 1);
  assert.equal(ticketCitations('a.ts', `// ${cite.replace(' ', '-')} report`).length, 1);
  assert.equal(ticketCitations('a.ts', '// the issuer of a token; issues 0 rows').length, 0);
  assert.equal(
    ticketCitations('a.ts', `// the numbers (${cite.replace('e', 'es')}, 20)`).length,
    1,
  );
  assert.deepEqual(
    pointers(' * the relay (docs/operations.md "Slow and vanished peers\n * on the relay"):'),
    [{ file: 'docs/operations.md', heading: 'Slow and vanished peers on the relay' }],
  );
  assert.deepEqual(pointers('-- (README "Metrics"; src/ws/README.md "Flow control")'), [
    { file: 'README.md', heading: 'Metrics' },
    { file: 'src/ws/README.md', heading: 'Flow control' },
  ]);
});
