/**
 * `deno task build:npm`: emits the npm package into npm/ with the TypeScript
 * compiler (ESM + .d.ts, relative `.ts` imports rewritten to `.js`), writes its
 * package.json (the exports map from EXPORTS, bin `svc-gateway`), the bin
 * launcher, the package's README (from hosts/PACKAGE_README.md) and the operator files of ops/
 * (alert rules, dashboard). The bin's `sandbox` subcommand brings the sandbox upstream's modules
 * (scripts/sandbox/, imported dynamically); the schema text they read is inlined (INLINED_TEXT).
 * The sources stay the single truth: npm/ is build output (git-ignored).
 */
import {
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import denoJson from '../deno.json' with { type: 'json' };
import { PACKAGE_VERSION } from '../hosts/node/version.ts';
import { vercelConfig } from '../hosts/vercel/config.ts';

const root = join(dirname(new URL(import.meta.url).pathname), '..');
/** Where the package lands: npm/, swapped in whole once built (see the end of this script). */
const final = join(root, 'npm');
/**
 * The build writes beside it first, so a test or another build reading npm/ meanwhile never sees
 * a half-written package: the tests' Node children import npm/ while a build may be running.
 */
const out = join(root, `.npm-build-${Deno.pid}`);

/**
 * The package's exports map, one row per entry: subpath to its source module. Each becomes
 * `{ types, default }` pointing at the emitted .d.ts and .js. Nothing Deno-only may be reachable
 * from an entry (the TypeScript check below fails on `Deno.*`). Add a row to add an entry.
 */
const EXPORTS: Record<string, string> = {
  '.': 'mod.ts',
  './node': 'hosts/node/mod.ts',
  './vite': 'hosts/vite/mod.ts',
  './vercel': 'hosts/vercel/mod.ts',
  './client': 'src/client/mod.ts',
};
/** The bin: name to source module (the launcher imports its emitted .js). */
const BINS: Record<string, string> = { 'svc-gateway': 'hosts/node/main.ts' };
/** Packages the app brings itself (loaded at run time only where that host runs). */
const PEERS: Record<string, string> = { vite: '>=7' };
/** The package's README, a source file of the repository. */
const README = 'hosts/PACKAGE_README.md';
/** Operator files shipped in the package (a folder of the repository, copied whole). */
const OPS = 'ops';

/**
 * Modules whose emitted JavaScript returns a text file of the repository instead of reading it at
 * run time: source module to the file and the one function it exports (declared `(): string`).
 * The package carries no data folder, and the single executable bundled from it (where
 * `import.meta.url` is empty) can read no file beside it (scripts/sandbox/schema_sdl.ts).
 */
const INLINED_TEXT: Record<string, { file: string; exportName: string }> = {
  'scripts/sandbox/schema_sdl.ts': {
    file: 'data/upstream/schema.graphql',
    exportName: 'upstreamSchemaSdl',
  },
};

const emittedJs = (source: string) => `./esm/${source.replace(/\.ts$/, '.js')}`;
const emittedTypes = (source: string) => `./esm/${source.replace(/\.ts$/, '.d.ts')}`;

/** The entries and bins; the compiler follows their imports to everything else. */
const entryFiles = [...Object.values(EXPORTS), ...Object.values(BINS)].map((f) => join(root, f));

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
  rmSync(out, { recursive: true, force: true });
  Deno.exit(1);
}

/**
 * Runtime dependencies an app often has itself (the client library's): declared as a caret range
 * from the version deno.json pins, which CI tests, so an app's bundler keeps one copy of each
 * (docs/development.md "Dependencies"). Every other dependency is pinned exactly.
 */
const SHARED_WITH_APPS: ReadonlySet<string> = new Set(['graphql', 'graphql-ws']);

/** The version range the package declares for `name`. */
function declared(name: string): string {
  return SHARED_WITH_APPS.has(name) ? `^${pinned(name)}` : pinned(name);
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
    // statements only (line-anchored: the emitter writes each on one line), never doc comments
    const statements = /^(?:import|export)\b[^\n]*?(?:from\s*|import\s*)['"]([^'"./][^'"]*)['"]/gm;
    for (const m of readFileSync(path, 'utf8').matchAll(statements)) {
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
/** Replaces each INLINED_TEXT module's emitted JavaScript; exits 1 if its declaration differs. */
function inlineTexts(): void {
  for (const [source, { file, exportName }] of Object.entries(INLINED_TEXT)) {
    const declaration = `export declare function ${exportName}(): string;`;
    const types = readFileSync(join(out, emittedTypes(source)), 'utf8');
    if (!types.includes(declaration)) {
      console.error(`build:npm: ${source} no longer declares ${declaration}`);
      rmSync(out, { recursive: true, force: true });
      Deno.exit(1);
    }
    const text = JSON.stringify(readFileSync(join(root, file), 'utf8'));
    const js = `/** ${file}, inlined by scripts/build_npm.ts. */\n` +
      `export function ${exportName}() {\n  return ${text};\n}\n`;
    writeFileSync(join(out, emittedJs(source)), js);
  }
}
inlineTexts();
const runtimeDeps = importedPackages(join(out, 'esm'));

mkdirSync(join(out, 'bin'), { recursive: true });
for (const [name, source] of Object.entries(BINS)) {
  writeFileSync(
    join(out, `bin/${name}.js`),
    `#!/usr/bin/env node\nimport '.${emittedJs(source)}';\n`,
    { mode: 0o755 },
  );
}
copyFileSync(join(root, README), join(out, 'README.md'));
// The deployment's vercel.json, every security header on every path (hosts/vercel/config.ts).
writeFileSync(join(out, 'vercel.json'), JSON.stringify(vercelConfig(), null, 2) + '\n');
// The alert rules and the dashboard (docs/operations.md "Alerts and dashboard"), shipped as is.
mkdirSync(join(out, OPS), { recursive: true });
for (const name of readdirSync(join(root, OPS))) {
  if (!name.endsWith('.md')) copyFileSync(join(root, OPS, name), join(out, OPS, name));
}
const pkg = {
  name: 'svc-gateway',
  version: PACKAGE_VERSION,
  description: 'Token-injecting gateway for browser apps on a bot platform GraphQL API',
  type: 'module',
  license: 'UNLICENSED',
  engines: { node: '>=20.18.1' },
  bin: Object.fromEntries(Object.keys(BINS).map((name) => [name, `./bin/${name}.js`])),
  exports: Object.fromEntries(
    Object.entries(EXPORTS).map((
      [subpath, source],
    ) => [subpath, { types: emittedTypes(source), default: emittedJs(source) }]),
  ),
  files: ['esm', 'bin', OPS, 'README.md', 'vercel.json'],
  dependencies: Object.fromEntries(runtimeDeps.map((d) => [d, declared(d)])),
  peerDependencies: PEERS,
  peerDependenciesMeta: Object.fromEntries(
    Object.keys(PEERS).map((name) => [name, { optional: true }]),
  ),
};
writeFileSync(join(out, 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
const emittedCount = walkFiles(join(out, 'esm')).filter((f) => f.endsWith('.js')).length;
// the swap: npm/ is missing only between these two calls, never half-written
rmSync(final, { recursive: true, force: true });
renameSync(out, final);
console.log(`build:npm: ${emittedCount} modules emitted to ${relative(root, final)}/`);
