/**
 * The V8 setting of the gateway's own server processes (hosts/v8_flags.ts, docs/operations.md
 * "V8's allocation-site pretenuring") reaches the Deno command lines that start them: the
 * `deno task serve` variables (which tests and the bench give every Deno host they start,
 * scripts/host_process.ts `serveTaskEnv`) and the compiled binary's flags. The Node bin sets it
 * at start; `deno task serve:parallel` passes it to `deno serve` (tests/shared_limits runs it).
 */
import assert from 'node:assert/strict';
import { SERVER_V8_FLAGS } from '../../hosts/v8_flags.ts';
import { serveTaskEnv } from '../../scripts/host_process.ts';

const tasks = JSON.parse(Deno.readTextFileSync(new URL('../../deno.json', import.meta.url))).tasks;

Deno.test('v8 flags: deno task serve runs the Deno host with the server V8 flags', () => {
  assert.ok(SERVER_V8_FLAGS.includes('--no-allocation-site-pretenuring'));
  assert.equal(serveTaskEnv().DENO_V8_FLAGS, SERVER_V8_FLAGS.join(','));
});

Deno.test('v8 flags: deno task compile keeps them in the binary', () => {
  assert.match(tasks.compile, new RegExp(` --v8-flags=${SERVER_V8_FLAGS.join(',')} `));
});
