/**
 * The JSON depth scan (src/http/json_depth.ts): what counts as a level, strings holding brackets,
 * quotes and backslashes, the limit and one past it, texts far deeper than any stack, and the
 * scan against the depth of the parsed value for generated JSON (fast-check).
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { nestsDeeperThan } from '../../src/http/json_depth.ts';

/** The depth of a text as the scan reads it: the smallest max it does not exceed. */
function scanDepth(text: string): number {
  let max = 0;
  while (nestsDeeperThan(text, max)) max++;
  return max;
}

/** The depth of a parsed value, walked recursively (the reference; small values only). */
function valueDepth(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const children = Object.values(value as Record<string, unknown>);
  return 1 + Math.max(0, ...children.map(valueDepth));
}

const nested = (n: number) => '['.repeat(n) + '1' + ']'.repeat(n);

Deno.test('a scalar is depth 0, an empty array or object 1, each container one more', () => {
  for (const text of ['1', '"a"', 'null', 'true', '-1.5e3', '""']) assert.equal(scanDepth(text), 0);
  assert.equal(scanDepth('{}'), 1);
  assert.equal(scanDepth('[]'), 1);
  assert.equal(scanDepth(' [ ] '), 1);
  assert.equal(scanDepth('{"a":[1]}'), 2);
  assert.equal(scanDepth('[[],[[]],[]]'), 3, 'the deepest point counts, not the sum');
  assert.equal(scanDepth('{"query":"{ a }","variables":{"x":[[1]]}}'), 4);
});

Deno.test('brackets, braces and quotes inside strings do not count', () => {
  assert.equal(scanDepth('{"a":"[[[[{{{{"}'), 1);
  assert.equal(scanDepth('{"[[{{":"]]}}"}'), 1, 'keys too');
  assert.equal(scanDepth('{"a":"\\"[[[["}'), 1, 'an escaped quote does not end the string');
  assert.equal(scanDepth('[{"a":"\\\\"},[[1]]]'), 3, 'an escaped backslash before the quote does');
  assert.equal(scanDepth('["\\\\\\"[[", [1]]'), 2, 'three backslashes: the quote is escaped');
  assert.equal(scanDepth('["\\\\\\\\", [[1]]]'), 3, 'four backslashes: the quote closes');
  assert.equal(
    scanDepth('["\\u005b\\u007b", "\\/"]'),
    1,
    '\\u escapes are characters, not brackets',
  );
  assert.equal(scanDepth('["é[", "😀{"]'), 1);
});

Deno.test('at the limit is within it; one past is over', () => {
  for (const limit of [1, 2, 128, 1000]) {
    assert.equal(nestsDeeperThan(nested(limit), limit), false, `${limit} deep, limit ${limit}`);
    assert.equal(
      nestsDeeperThan(nested(limit + 1), limit),
      true,
      `${limit + 1} deep, limit ${limit}`,
    );
  }
  assert.equal(nestsDeeperThan('1', 0), false);
  assert.equal(nestsDeeperThan('[]', 0), true);
});

Deno.test('texts far deeper than any call stack are measured, never thrown on', () => {
  assert.equal(nestsDeeperThan(nested(100_000), 128), true);
  assert.equal(
    nestsDeeperThan(`{"x":${'{"a":'.repeat(1_000_000)}1${'}'.repeat(1_000_000)}}`, 128),
    true,
  );
  assert.equal(nestsDeeperThan('['.repeat(1_000_000), 999_999), true, 'never closed');
  assert.equal(nestsDeeperThan('["' + '\\'.repeat(1_000_001), 2), false, 'unterminated string');
});

Deno.test('the scan agrees with the depth of the parsed value (generated JSON)', () => {
  // strings drawn from characters that matter to the scan
  const tricky = fc.stringMatching(/^[[\]{}"\\ a,:é]{0,12}$/);
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.oneof(tricky, fc.integer(), fc.boolean(), fc.constant(null)),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(tricky, tie('value'), { maxKeys: 4 }),
    ),
  }));
  fc.assert(
    fc.property(value, fc.integer({ min: 0, max: 2 }), (v, indent) => {
      const text = JSON.stringify(v, null, indent);
      assert.equal(scanDepth(text), valueDepth(JSON.parse(text)), text);
    }),
    { numRuns: 2_000 },
  );
});
