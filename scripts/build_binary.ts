/**
 * `deno task build:binary`: the Node server host (the `svc-gateway` bin of the npm package: health,
 * the proxy, the static build with `--dist`, the relay, `--workers`) as one executable file, with
 * Node's single executable applications:
 *
 * 1. esbuild bundles the emitted bin entry (npm/esm/hosts/node/main.js, so `deno task build:npm`
 *    first) and every package it imports into one CommonJS script; node: built-ins stay requires;
 *    `ws`'s optional native helpers (bufferutil, utf-8-validate) are left out, as when the npm
 *    package is installed without them;
 * 2. `node --experimental-sea-config` writes that script into a preparation blob;
 * 3. postject injects the blob into a copy of the `node` found on PATH (the executable is that
 *    Node version, for this operating system and CPU).
 *
 * Output: dist-bin/svc-gateway-node (git-ignored), or `--out PATH`. Prints the path, its size in
 * bytes and MiB and the Node version. Exits 1 with the reason when npm/ is not built or a step
 * fails. README.md "One file: the Node server as a single executable" says how to run the file.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';
import { inject } from 'postject';

const ROOT = join(dirname(new URL(import.meta.url).pathname), '..');
/** The bin entry of the emitted npm package (scripts/build_npm.ts). */
const ENTRY = join(ROOT, 'npm/esm/hosts/node/main.js');
/** Where the executable goes unless `--out` says otherwise. */
export const DEFAULT_OUTPUT = join(ROOT, 'dist-bin/svc-gateway-node');
/** The fuse in Node's binary that marks a single executable (Node's docs). */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
/** The section the blob goes into; Node looks it up by this name. */
const SEA_RESOURCE = 'NODE_SEA_BLOB';

/** One CommonJS script of the entry and everything it imports (no top-level await allowed). */
async function bundle(outfile: string): Promise<void> {
  try {
    await esbuild.build({
      entryPoints: [ENTRY],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      // ws loads these optional native helpers inside try/catch; a single executable can load no
      // file beside it, so they are neither bundled nor tried (ws reads these variables)
      external: ['bufferutil', 'utf-8-validate'],
      define: {
        'process.env.WS_NO_BUFFER_UTIL': '"1"',
        'process.env.WS_NO_UTF_8_VALIDATE': '"1"',
      },
      logLevel: 'warning',
    });
  } finally {
    await esbuild.stop();
  }
}

/** Runs `node` with `args` in `cwd`; returns its stdout, throws with its output on failure. */
async function node(args: string[], cwd: string): Promise<string> {
  const run = await new Deno.Command('node', { args, cwd, stdout: 'piped', stderr: 'piped' })
    .output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  if (!run.success) {
    throw new Error(`node ${args.join(' ')}: ${text(run.stdout)}${text(run.stderr)}`);
  }
  return text(run.stdout).trim();
}

/** The preparation blob of `main` (a script in `dir`), written by Node itself. */
async function seaBlob(dir: string, main: string): Promise<Uint8Array> {
  const config = {
    main,
    output: 'sea-prep.blob',
    disableExperimentalSEAWarning: true,
    useSnapshot: false,
    useCodeCache: true,
  };
  Deno.writeTextFileSync(join(dir, 'sea-config.json'), JSON.stringify(config));
  await node(['--experimental-sea-config', 'sea-config.json'], dir);
  return readFileSync(join(dir, 'sea-prep.blob'));
}

/** What buildBinary made. */
export interface BuiltBinary {
  path: string;
  bytes: number;
  /** The Node version inside, e.g. v20.20.2. */
  nodeVersion: string;
}

/**
 * Builds the executable at `output` (absolute or relative to the working directory), replacing
 * what is there. Throws when npm/ is not built, or with the failing step's output.
 */
export async function buildBinary(output: string = DEFAULT_OUTPUT): Promise<BuiltBinary> {
  if (!existsSync(ENTRY)) throw new Error(`${ENTRY} is missing: run deno task build:npm first`);
  const path = resolve(output);
  const work = mkdtempSync(join(tmpdir(), 'svc-gateway-sea-'));
  try {
    await bundle(join(work, 'main.cjs'));
    const blob = await seaBlob(work, 'main.cjs');
    const nodePath = await node(['-p', 'process.execPath'], work);
    const nodeVersion = await node(['--version'], work);
    Deno.mkdirSync(dirname(path), { recursive: true });
    rmSync(path, { force: true });
    copyFileSync(nodePath, path);
    Deno.chmodSync(path, 0o755);
    await inject(path, SEA_RESOURCE, blob, { sentinelFuse: SEA_FUSE });
    return { path, bytes: statSync(path).size, nodeVersion };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { values } = parseArgs({ args: Deno.args, options: { out: { type: 'string' } } });
  try {
    const built = await buildBinary(values.out);
    const mib = (built.bytes / 2 ** 20).toFixed(1);
    console.log(
      `build:binary: ${built.path} (${built.bytes} bytes, ${mib} MiB, node ${built.nodeVersion})`,
    );
  } catch (error) {
    console.error(`build:binary: ${(error as Error).message}`);
    Deno.exit(1);
  }
}
