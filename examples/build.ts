/**
 * Builds the example app (examples/app/) into a dist directory the Node host serves: the
 * emitted client (npm/esm/src/client/, from `deno task build:npm`) bundled with graphql-ws by
 * esbuild. The import 'svc-gateway/client' resolves to the emitted ESM, as it would from the
 * npm package. The browser tests add their harness page to the same directory.
 *
 *   deno task build:npm && deno run -A examples/build.ts <out dir>
 */
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import * as esbuild from 'esbuild';

const ROOT = new URL('../', import.meta.url).pathname;
/** The emitted client module the bundles import. */
export const EMITTED_CLIENT = join(ROOT, 'npm/esm/src/client/mod.js');

/** Resolves 'svc-gateway/client' to the emitted package file. */
const packageAlias: esbuild.Plugin = {
  name: 'svc-gateway-client',
  setup(build) {
    build.onResolve({ filter: /^svc-gateway\/client$/ }, () => ({ path: EMITTED_CLIENT }));
  },
};

/**
 * Bundles `entries` (name -> source file) as browser ESM into `outDir` (`<name>.js`).
 * Throws when the npm package has not been built.
 */
export async function bundle(entries: Record<string, string>, outDir: string): Promise<void> {
  if (!existsSync(EMITTED_CLIENT)) {
    throw new Error('npm/ is missing the client: run `deno task build:npm` first');
  }
  try {
    await esbuild.build({
      entryPoints: entries,
      outdir: outDir,
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      plugins: [packageAlias],
      logLevel: 'silent',
      absWorkingDir: ROOT,
    });
  } finally {
    await esbuild.stop();
  }
}

/** Writes the example app (index.html, app.css, app.js) into `dir`. */
export async function buildExample(dir: string): Promise<void> {
  await bundle({ app: join(ROOT, 'examples/app/app.js') }, dir);
  copyFileSync(join(ROOT, 'examples/app/index.html'), join(dir, 'index.html'));
  copyFileSync(join(ROOT, 'examples/app/app.css'), join(dir, 'app.css'));
}

if (import.meta.main) {
  const dir = Deno.args[0];
  if (!dir) {
    console.error('usage: deno run -A examples/build.ts <out dir>');
    Deno.exit(2);
  }
  mkdirSync(dir, { recursive: true });
  await buildExample(dir);
  console.log(`example app written to ${dir}`);
}
