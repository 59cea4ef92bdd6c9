/**
 * The client library's weight in an app: the emitted `svc-gateway/client` (npm/esm/src/client/,
 * from `deno task build:npm`) bundled by esbuild as a browser ESM with everything it imports
 * (graphql-ws, graphql-js's printer), minified, then gzipped (level 9). Prints one JSON line
 * `{minifiedBytes, gzipBytes, inputs}` (inputs: bytes each package contributes to the minified
 * bundle, from esbuild's metafile).
 *
 *   deno task build:npm && deno run -A examples/client_size.ts
 */
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { EMITTED_CLIENT } from './build.ts';

/** Sizes of one minified bundle, in bytes. */
export interface ClientSize {
  minifiedBytes: number;
  gzipBytes: number;
  /** Minified bytes by origin: 'svc-gateway/client', or the npm package name. */
  inputs: Record<string, number>;
}

/** The package a bundled file comes from ('svc-gateway/client' for the emitted client). */
function origin(path: string): string {
  const at = path.lastIndexOf('node_modules/');
  if (at === -1) return 'svc-gateway/client';
  const rest = path.slice(at + 'node_modules/'.length).split('/');
  return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
}

/** Bundles everything the client exports (tree-shaken as an app importing all of it would). */
export async function measureClient(): Promise<ClientSize> {
  try {
    const result = await esbuild.build({
      stdin: {
        contents: `export * from ${JSON.stringify(EMITTED_CLIENT)};`,
        resolveDir: new URL('.', import.meta.url).pathname,
        loader: 'js',
      },
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const code = result.outputFiles[0].contents;
    const inputs: Record<string, number> = {};
    for (const output of Object.values(result.metafile.outputs)) {
      for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
        inputs[origin(path)] = (inputs[origin(path)] ?? 0) + bytesInOutput;
      }
    }
    return {
      minifiedBytes: code.byteLength,
      gzipBytes: gzipSync(code, { level: 9 }).byteLength,
      inputs,
    };
  } finally {
    await esbuild.stop();
  }
}

if (import.meta.main) console.log(JSON.stringify(await measureClient()));
