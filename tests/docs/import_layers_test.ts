/**
 * The core's imports run one way (src/README.md "Imports run downwards"): every import from one
 * folder of `src/` into another goes to a folder lower in {@link LAYERS}, so a piece low in the
 * tree never depends on one above it and no two folders import each other. Two kinds of import
 * are named here rather than forbidden, each type-only (erased from the emitted code):
 *
 * - `core.ts`: the `Core` interface every route and check reads (the pieces one proxy built),
 *   taken by the folders that receive a core;
 * - `client/` takes the routes' shared answer types (`routes/<group>/types.ts`) and nothing else
 *   of the server, so the browser library carries no server code.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { relativeImports, tsFiles } from '../helpers/imports.ts';

const SRC = new URL('../../src/', import.meta.url).pathname;

/** Folders of `src/`, lowest first; top-level files (`proxy.ts`, ...) sit above them all. */
const LAYERS = [
  'config',
  'memory',
  'http',
  'observability',
  'graphql',
  'backend',
  'ws',
  'upstream',
  'admission',
  'shared_limits',
  'routes',
] as const;

/** Folders that may take the `Core` interface from `core.ts` (type-only). */
const CORE_READERS = new Set(['admission', 'routes', 'shared_limits']);

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
  line: string;
}

/** `src/`-relative folder of a path (`.` for a top-level file). */
function folderOf(path: string): string {
  const rel = relative(SRC, path);
  return rel.includes('/') ? rel.split('/')[0] : '.';
}

/** Every import of a `src/` file that leaves its folder (a top-level file's, every one). */
function edges(): Edge[] {
  return tsFiles(SRC).flatMap((file) => {
    const from = folderOf(file);
    const source = readFileSync(file, 'utf8');
    return relativeImports(source).flatMap(({ specifier, typeOnly }): Edge[] => {
      const target = join(file, '..', specifier);
      if (folderOf(target) === from && from !== '.') return [];
      const to = target.startsWith(SRC) ? relative(SRC, target) : target;
      return [{ from, to, typeOnly, line: `${relative(SRC, file)} -> ${specifier}` }];
    });
  });
}

function rank(folder: string): number {
  if (folder === '.') return LAYERS.length;
  const at = (LAYERS as readonly string[]).indexOf(folder);
  assert.notEqual(at, -1, `src/${folder}/ is in no layer of this test (LAYERS)`);
  return at;
}

/** Why an edge runs the wrong way, or null when it is allowed. */
function wrongWay(edge: Edge): string | null {
  const toFolder = edge.to.includes('/') ? edge.to.split('/')[0] : '.';
  if (edge.from === 'client') {
    const sharedTypes = /^routes\/[a-z_]+\/types\.ts$/.test(edge.to);
    return sharedTypes && edge.typeOnly ? null : "client/ takes only the routes' types";
  }
  if (toFolder === 'client') return 'the server imports the browser library';
  if (edge.to === 'core.ts' && edge.typeOnly && CORE_READERS.has(edge.from)) return null;
  if (edge.from === '.') return null;
  return rank(toFolder) < rank(edge.from) ? null : `${edge.from}/ imports ${edge.to}, above it`;
}

Deno.test('every folder of src/ is in a layer, and every import runs down the layers', () => {
  const all = edges();
  assert.ok(all.length > 100, `found ${all.length} imports across folders; the scan is broken`);
  const wrong = all.flatMap((edge) => {
    const why = wrongWay(edge);
    return why ? [`${edge.line}  (${why})`] : [];
  });
  assert.deepEqual(wrong, []);
});

Deno.test('the scan tells an erased import from one that runs', () => {
  const source = [
    "import type {\n  A,\n} from '../a.ts';",
    "import { type B, c } from '../c.ts';",
    "export type { D } from '../d.ts';",
    "import '../e.ts';",
  ].join('\n');
  assert.deepEqual(relativeImports(source).map((found) => [found.specifier, found.typeOnly]), [
    ['../a.ts', true],
    ['../c.ts', false],
    ['../d.ts', true],
    ['../e.ts', false],
  ]);
});
