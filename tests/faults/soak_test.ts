/**
 * `deno task soak` itself (scripts/faults/soak.ts): a bad flag prints the usage and exits 2;
 * one fault on one host, briefly, prints its PASS line and the table with its row.
 */
import assert from 'node:assert/strict';
import { parseDuration, TABLE_HEADER } from '../../scripts/faults/soak.ts';

const SOAK = new URL('../../scripts/faults/soak.ts', import.meta.url).pathname;

async function soak(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ['run', '--allow-all', SOAK, ...args],
    stdout: 'piped',
    stderr: 'piped',
  }).output();
  const text = new TextDecoder();
  return { code, out: text.decode(stdout), err: text.decode(stderr) };
}

Deno.test('soak: durations read as ms, s and m; anything else is refused', () => {
  assert.equal(parseDuration('3m'), 180_000);
  assert.equal(parseDuration('90s'), 90_000);
  assert.equal(parseDuration('500ms'), 500);
  assert.equal(parseDuration('soon'), null);
});

Deno.test('soak: a bad flag prints the usage and exits 2', async () => {
  const run = await soak('--host', 'bun');
  assert.equal(run.code, 2);
  assert.match(run.err, /usage: deno task soak/);
});

Deno.test('soak: one fault on one host prints its row in the table', async () => {
  const run = await soak('--only', 'answer not JSON', '--host', 'deno', '--duration', '1s');
  assert.equal(run.code, 0, run.out + run.err);
  assert.match(run.out, /^PASS deno upstream: answer not JSON$/m);
  assert.ok(run.out.includes(`| ${TABLE_HEADER.join(' | ')} |`), run.out);
  const row = run.out.split('\n').find((l) => l.startsWith('| upstream: answer not JSON | deno |'));
  assert.ok(row, run.out);
  assert.match(row, /\d+ 200 not JSON/);
  assert.match(row, /\| PASS \|$/);
});
