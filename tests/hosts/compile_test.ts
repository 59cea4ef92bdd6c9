/**
 * `deno task compile`: the Deno host as one executable. `deno compile` downloads
 * a runtime (denort) from dl.deno.land; the compile runs once as this file
 * loads. Where that download cannot happen (these machines), the test is
 * ignored (Deno counts it as ignored, never as passed) and the file prints
 * SKIPPED with the reason. Where it can, the binary is run against the sandbox
 * upstream with the shared route table. The command is the task's own, from
 * deno.json, with the output redirected into a temp directory.
 */
import assert from 'node:assert/strict';
import { ROOT, startChildProcess } from '../../scripts/host_process.ts';
import { SANDBOX_TOKEN, startSandbox } from '../../scripts/sandbox/mod.ts';
import denoJson from '../../deno.json' with { type: 'json' };
import { runRouteTable } from './route_table.ts';

/** The compile task's arguments with `--output` pointed at `output`. */
function compileArgs(output: string): string[] {
  const words = denoJson.tasks.compile.split(/\s+/);
  assert.equal(words[0], 'deno');
  const at = words.indexOf('--output');
  assert.ok(at > 0, 'the compile task names its --output');
  words[at + 1] = output;
  return words.slice(1);
}

/** Whether a failed compile failed only at the runtime download (denort from dl.deno.land). */
function downloadFailed(output: string): boolean {
  return output.includes('dl.deno.land') && /error sending request/.test(output);
}

/** The compile task run once as this file loads: built, skipped (with why) or failed (output). */
async function compile(
  output: string,
): Promise<{ built: true } | { skip: string } | { failed: string }> {
  const run = await new Deno.Command(Deno.execPath(), {
    args: compileArgs(output),
    cwd: ROOT,
    stdout: 'piped',
    stderr: 'piped',
  }).output();
  if (run.success) return { built: true };
  const text = new TextDecoder().decode(run.stdout) + new TextDecoder().decode(run.stderr);
  if (!downloadFailed(text)) return { failed: text };
  return {
    skip: 'deno compile could not download its runtime (denort from dl.deno.land); ' +
      'the executable cannot be built on this machine',
  };
}

const dir = await Deno.makeTempDir({ prefix: 'svc-gateway-compile-' });
const output = `${dir}/svc-gateway`;
const compiled = await compile(output);
if ('skip' in compiled) {
  // counted as ignored by Deno's runner, never as passed
  console.log(`SKIPPED: deno task compile: ${compiled.skip}`);
  await Deno.remove(dir, { recursive: true });
}

Deno.test({
  name: 'deno task compile: one executable of the Deno host',
  ignore: 'skip' in compiled,
  async fn(t) {
    try {
      if ('failed' in compiled) assert.fail(`deno task compile failed:\n${compiled.failed}`);
      const sandbox = await startSandbox();
      const binary = await startChildProcess({
        command: [output],
        env: { SVC_TOKEN: SANDBOX_TOKEN, SVC_API_BASE: sandbox.url, PORT: '0' },
        ready: /listening on (http:\/\/\S+)/,
      });
      try {
        await t.step(
          'the binary serves the route table',
          (t) => runRouteTable(t, { origin: binary.url, sandbox }),
        );
      } finally {
        await binary.stop();
        await sandbox.close();
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
