/**
 * The single executable of the Node host against the Node host as `npx svc-gateway` runs it
 * (docs/benchmarks.md "The single executable"): what each puts on disk, and how long each takes
 * from its start to its startup line and to its first `/svc/healthz` 200.
 *
 * - binary: the file of `deno task build:binary` (or `--binary PATH`), copied alone into an empty
 *   folder and run there;
 * - Node host: the npm package packed from npm/ and installed into a throwaway app
 *   (tests/hosts/package_app.ts), run as `node_modules/.bin/svc-gateway` by the `node` on PATH.
 *
 * Both get the same variables (the sandbox upstream's, started in this process; PORT=0), and run
 * interleaved, a fresh process each round; the first round of each is a discarded warm-up (the
 * files come into the page cache). Prints the sizes, then per host the median and min..max over
 * the rounds, and the binary's medians as ratios of the Node host's measured in the same run.
 *
 * Not part of `deno task bench`: `deno task build:binary && deno run --allow-all
 * scripts/bench/binary_startup.ts [--rounds 9] [--binary PATH]`.
 */
import { parseArgs } from 'node:util';
import { type ChildProcess, ROOT, startChildProcess } from '../host_process.ts';
import { SANDBOX_TOKEN, startSandbox } from '../sandbox/mod.ts';
import { createPackageApp } from '../../tests/hosts/package_app.ts';

/** Bytes and files under `path` (symbolic links counted as themselves, not followed). */
export async function diskUse(path: string): Promise<{ bytes: number; files: number }> {
  const info = await Deno.lstat(path);
  if (!info.isDirectory) return { bytes: info.size, files: 1 };
  let bytes = 0;
  let files = 0;
  for await (const entry of Deno.readDir(path)) {
    const inner = await diskUse(`${path}/${entry.name}`);
    bytes += inner.bytes;
    files += inner.files;
  }
  return { bytes, files };
}

/** One start: ms from the spawn to the startup line, and to the first health 200. */
async function startOnce(
  command: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ lineMs: number; healthMs: number }> {
  const started = performance.now();
  const child: ChildProcess = await startChildProcess({
    command,
    cwd,
    env,
    ready: /listening on (http:\/\/\S+)/,
  });
  const lineMs = performance.now() - started;
  try {
    const res = await fetch(`${child.url}/svc/healthz`);
    await res.body?.cancel();
    if (res.status !== 200) throw new Error(`${command[0]}: health answered ${res.status}`);
    return { lineMs, healthMs: performance.now() - started };
  } finally {
    await child.stop();
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const spread = (values: number[]) =>
  `${Math.min(...values).toFixed(0)}..${Math.max(...values).toFixed(0)} (${
    median(values).toFixed(0)
  })`;
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

async function nodeExecutable(): Promise<string> {
  const run = await new Deno.Command('node', { args: ['-p', 'process.execPath'], stdout: 'piped' })
    .output();
  return new TextDecoder().decode(run.stdout).trim();
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      rounds: { type: 'string', default: '9' },
      binary: { type: 'string', default: `${ROOT}dist-bin/svc-gateway-node` },
    },
  });
  const rounds = Number(values.rounds);
  const sandbox = await startSandbox();
  const app = await createPackageApp({});
  const folder = await Deno.makeTempDir({ prefix: 'svc-gateway-binary-bench-' });
  try {
    await Deno.copyFile(values.binary, `${folder}/svc-gateway`);
    await Deno.chmod(`${folder}/svc-gateway`, 0o755);
    const env = { SVC_TOKEN: SANDBOX_TOKEN, SVC_API_BASE: sandbox.url, PORT: '0' };
    const hosts = [
      { label: 'binary', command: [`${folder}/svc-gateway`], cwd: folder },
      { label: 'Node host', command: [`${app.dir}/node_modules/.bin/svc-gateway`], cwd: app.dir },
    ];
    const binary = await diskUse(`${folder}/svc-gateway`);
    const node = await diskUse(await Deno.realPath(await nodeExecutable()));
    const modules = await diskUse(`${app.dir}/node_modules`);
    console.log(`binary: ${binary.bytes} bytes (${mib(binary.bytes)} MiB), 1 file`);
    console.log(
      `Node host: node ${node.bytes} bytes (${mib(node.bytes)} MiB) + node_modules ` +
        `${modules.bytes} bytes (${mib(modules.bytes)} MiB, ${modules.files} files)`,
    );
    const times = new Map(
      hosts.map((h) => [h.label, { line: [] as number[], health: [] as number[] }]),
    );
    for (let round = 0; round <= rounds; round++) {
      for (const host of hosts) {
        const { lineMs, healthMs } = await startOnce(host.command, host.cwd, env);
        if (round === 0) continue; // warm-up
        times.get(host.label)!.line.push(lineMs);
        times.get(host.label)!.health.push(healthMs);
      }
    }
    console.log(`\n${rounds} rounds, ms from spawn: min..max (median)`);
    for (const host of hosts) {
      const t = times.get(host.label)!;
      console.log(
        `${host.label}: startup line ${spread(t.line)}; first health 200 ${spread(t.health)}`,
      );
    }
    const b = times.get('binary')!;
    const n = times.get('Node host')!;
    console.log(
      `binary / Node host: startup line ${(median(b.line) / median(n.line)).toFixed(2)}x, ` +
        `first health 200 ${(median(b.health) / median(n.health)).toFixed(2)}x`,
    );
  } finally {
    await Deno.remove(folder, { recursive: true });
    await app.remove();
    await sandbox.close();
  }
}
