/**
 * The `svc-gateway` bin's own words (hosts/node/main.ts), run from the emitted package under Node:
 * `--help` prints the usage and exits 0; `--workers 0` names the rule (1 to DEFAULTS.workersMax,
 * or 'auto') and exits 2; an unknown flag prints the usage and exits 2. None of them starts a
 * server.
 */
import assert from 'node:assert/strict';
import { ROOT } from '../../scripts/host_process.ts';
import { DEFAULTS } from '../../src/config/defaults.ts';

async function bin(...args: string[]) {
  const out = await new Deno.Command('node', {
    args: [`${ROOT}npm/bin/svc-gateway.js`, ...args],
    env: { SVC_TOKEN: 't', PORT: '0' },
    stdout: 'piped',
    stderr: 'piped',
  }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

Deno.test('svc-gateway --help prints the usage, every flag and the first variables; exit 0', async () => {
  for (const flag of ['--help', '-h']) {
    const run = await bin(flag);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^usage: svc-gateway /);
    for (
      const word of ['--dist', '--workers', '--version', '--help', 'SVC_TOKEN', 'SVC_API_BASE']
    ) {
      assert.ok(run.stdout.includes(word), `${flag}: ${word}`);
    }
  }
});

Deno.test('svc-gateway --workers 0 (or past the maximum) names the rule; exit 2', async () => {
  for (const value of ['0', String(DEFAULTS.workersMax + 1), 'two']) {
    const run = await bin('--workers', value);
    assert.equal(run.code, 2, `${value}: ${run.stdout}`);
    assert.ok(
      run.stderr.includes(`a whole number from 1 to ${DEFAULTS.workersMax}, or 'auto'`),
      run.stderr,
    );
  }
});

Deno.test('svc-gateway with an unknown flag prints the usage; exit 2', async () => {
  const run = await bin('--bogus');
  assert.equal(run.code, 2);
  assert.match(run.stderr, /usage: svc-gateway /);
});
