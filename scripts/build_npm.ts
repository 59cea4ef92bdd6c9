/**
 * `deno task build:npm`: emits the npm package into npm/ with the TypeScript
 * compiler (ESM + .d.ts, relative `.ts` imports rewritten to `.js`), writes its
 * package.json (exports per host, bin `svc-gateway`) and the bin launcher.
 * The sources stay the single truth: npm/ is build output (git-ignored).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import denoJson from '../deno.json' with { type: 'json' };

const root = join(dirname(new URL(import.meta.url).pathname), '..');
const out = join(root, 'npm');

/** Every .ts file under `dir` (tests excluded). */
function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') && !name.endsWith('_test.ts') ? [path] : [];
  });
}

const entryFiles = [
  join(root, 'mod.ts'),
  join(root, 'hosts/env.ts'),
  ...tsFiles(join(root, 'src')),
  ...tsFiles(join(root, 'hosts/node')),
];

const options: ts.CompilerOptions = {
  // ESNext emit whatever the source folder's package scope says (there is no package.json at the root)
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
  declaration: true,
  strict: true,
  skipLibCheck: true,
  rewriteRelativeImportExtensions: true,
  allowImportingTsExtensions: true,
  resolveJsonModule: true,
  rootDir: root,
  outDir: join(out, 'esm'),
  types: ['node'],
  typeRoots: [join(root, 'node_modules/@types')],
};

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
// The emitted files are ESM: a package.json with "type": "module" must sit above them first.
writeFileSync(join(out, 'package.json'), JSON.stringify({ type: 'module' }));

const program = ts.createProgram(entryFiles, options);
const emitted = program.emit();
const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
const host: ts.FormatDiagnosticsHost = {
  getCanonicalFileName: (f) => f,
  getCurrentDirectory: () => root,
  getNewLine: () => '\n',
};
if (diagnostics.length > 0) {
  console.error(ts.formatDiagnosticsWithColorAndContext(diagnostics, host));
  Deno.exit(1);
}

/** Pinned versions of the runtime dependencies, read from deno.json's import map. */
function pinned(name: string): string {
  const spec = (denoJson.imports as Record<string, string>)[name];
  return spec.slice(spec.lastIndexOf('@') + 1);
}
/** Every bare package the emitted JavaScript imports (node: built-ins aside): the runtime dependencies. */
function importedPackages(dir: string): string[] {
  const names = new Set<string>();
  for (const path of walkFiles(dir)) {
    if (!path.endsWith('.js')) continue;
    for (
      const m of readFileSync(path, 'utf8').matchAll(/(?:from|import)\s*['"]([^'"./][^'"]*)['"]/g)
    ) {
      if (m[1].startsWith('node:')) continue;
      const parts = m[1].split('/');
      names.add(m[1].startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]);
    }
  }
  return [...names].sort();
}

function walkFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walkFiles(path) : [path];
  });
}
const runtimeDeps = importedPackages(join(out, 'esm'));

mkdirSync(join(out, 'bin'), { recursive: true });
writeFileSync(
  join(out, 'bin/svc-gateway.js'),
  "#!/usr/bin/env node\nimport '../esm/hosts/node/main.js';\n",
  { mode: 0o755 },
);
const pkg = {
  name: 'svc-gateway',
  version: '0.1.0',
  description: 'Token-injecting gateway for browser apps on a bot platform GraphQL API',
  type: 'module',
  license: 'UNLICENSED',
  engines: { node: '>=20.18.1' },
  bin: { 'svc-gateway': './bin/svc-gateway.js' },
  exports: {
    '.': { types: './esm/mod.d.ts', default: './esm/mod.js' },
    './node': { types: './esm/hosts/node/server.d.ts', default: './esm/hosts/node/server.js' },
  },
  dependencies: Object.fromEntries(runtimeDeps.map((d) => [d, pinned(d)])),
};
writeFileSync(join(out, 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
console.log(`build:npm: ${entryFiles.length} sources emitted to ${relative(root, out)}/`);
