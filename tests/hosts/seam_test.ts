/**
 * The hosts reach the core through one seam (hosts/README.md "The seam", src/host_api.ts): every
 * import or re-export in a .ts file under hosts/ that resolves into src/, or to the root mod.ts,
 * names src/host_api.ts and nothing else of the core.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { relativeImports, tsFiles } from '../helpers/imports.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SEAM = 'src/host_api.ts';

/** The relative specifiers of `source` (tests/helpers/imports.ts). */
function relativeSpecifiers(source: string): string[] {
  return relativeImports(source).map((found) => found.specifier);
}

/** The imports of hosts/ that reach the core other than through the seam, as "file -> target". */
export function crossings(root: string): string[] {
  const wrong: string[] = [];
  for (const file of tsFiles(join(root, 'hosts'))) {
    for (const specifier of relativeSpecifiers(readFileSync(file, 'utf8'))) {
      const target = relative(root, resolve(dirname(file), specifier));
      const core = target.startsWith('src/') || target === 'mod.ts';
      if (core && target !== SEAM) wrong.push(`${relative(root, file)} -> ${target}`);
    }
  }
  return wrong;
}

Deno.test('seam: the import scan sees static, side-effect and dynamic imports', () => {
  const source = [
    "import { a } from '../../src/a.ts';",
    "import type {\n  B,\n} from '../../src/b.ts';",
    "export { c } from '../src/c.ts';",
    "import '../../src/d.ts';",
    "const e = await import('../../src/e.ts');",
    "import { f } from 'node:fs';",
  ].join('\n');
  assert.deepEqual(relativeSpecifiers(source), [
    '../../src/a.ts',
    '../../src/b.ts',
    '../src/c.ts',
    '../../src/d.ts',
    '../../src/e.ts',
  ]);
});

Deno.test('seam: every host file imports the core only through src/host_api.ts', () => {
  assert.deepEqual(crossings(ROOT), []);
});

Deno.test('seam: the hosts do use the seam (the scan reads the tree)', () => {
  const users = tsFiles(join(ROOT, 'hosts')).filter((file) =>
    relativeSpecifiers(readFileSync(file, 'utf8')).some((specifier) =>
      relative(ROOT, resolve(dirname(file), specifier)) === SEAM
    )
  );
  assert.ok(users.length > 10, `only ${users.length} host files import ${SEAM}`);
});
