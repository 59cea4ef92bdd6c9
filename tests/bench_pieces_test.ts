/**
 * The 'pieces' scenario's variant list (scripts/bench/scenarios/pieces.ts, SVC_BENCH_VARIANTS;
 * docs/benchmarks.md "Speed-only pieces"): each entry a name, a checkout root and the parts
 * measured on it; a malformed entry or an unknown part stops the run before anything starts.
 */
import assert from 'node:assert/strict';
import { readVariants } from '../scripts/bench/scenarios/pieces.ts';

Deno.test('pieces: unset or blank, no variant', () => {
  assert.deepEqual(readVariants(undefined), []);
  assert.deepEqual(readVariants('  '), []);
});

Deno.test('pieces: each entry names a checkout (root ending in /) and its parts', () => {
  assert.deepEqual(readVariants('json=/work/wt-json:relay, timers=/work/wt-timers/:idle+post'), [
    { name: 'json', root: '/work/wt-json/', parts: ['relay'] },
    { name: 'timers', root: '/work/wt-timers/', parts: ['idle', 'post'] },
  ]);
});

Deno.test('pieces: a malformed entry or an unknown part is refused', () => {
  assert.throws(() => readVariants('json=/work/wt-json'), /not <name>=<dir>:<parts>/);
  assert.throws(() => readVariants('json:relay'), /not <name>=<dir>:<parts>/);
  assert.throws(() => readVariants('json=/work/wt-json:relay+speed'), /unknown part "speed"/);
});
