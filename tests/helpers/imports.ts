/**
 * Reads a source tree's relative imports as text, for the tests that hold the import rules (the
 * hosts' one seam, tests/hosts/seam_test.ts; the core's layers, tests/docs/import_layers_test.ts).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Every .ts file under `dir`, recursively. */
export function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** One relative import of a source: its specifier, and whether it is erased (`import type`). */
export interface RelativeImport {
  specifier: string;
  typeOnly: boolean;
}

/**
 * The relative imports of `source`: `import ... from '...'` and `export ... from '...'` (over any
 * number of lines), side-effect `import '...'` and dynamic `import('...')`. `typeOnly` is set for
 * `import type` / `export type` statements (a `type` inside the braces does not erase the
 * statement).
 */
export function relativeImports(source: string): RelativeImport[] {
  const pattern =
    /\b(?:(import|export)\s+(type\s+)?[^'"]*?\bfrom\s*|import\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g;
  return [...source.matchAll(pattern)].map((match) => ({
    specifier: match[3],
    typeOnly: match[2] !== undefined,
  }));
}
