/**
 * Ids an upstream answer teaches the resource fence (SPEC "Resource binding states").
 */

import assert from 'node:assert/strict';
import { idsInAnswer } from '../../src/graphql/mod.ts';

const A = 'a'.repeat(24);
const B = 'B'.repeat(24);

Deno.test('learn: quoted 24-hex strings, lowercased, deduplicated, in order', () => {
  const text = JSON.stringify({
    data: { bot: { id: A, flows: [{ id: B }, { id: A }], n: 1, x: 'c'.repeat(25) } },
  });
  assert.deepEqual(idsInAnswer(text), [A, 'b'.repeat(24)]);
});

Deno.test('learn: only whole strings count', () => {
  const inside = JSON.stringify({ note: `x"${A}"` });
  assert.deepEqual(idsInAnswer(inside), [], 'an escaped quote does not open a string');
  assert.deepEqual(idsInAnswer(JSON.stringify({ n: `${A}0` })), []);
  assert.deepEqual(idsInAnswer(`{"a":"${A}","b":"\\\\","c":"${'d'.repeat(24)}"}`), [
    A,
    'd'.repeat(24),
  ]);
  assert.deepEqual(idsInAnswer('{"n":123456789012345678901234}'), [], 'numbers are not ids');
});

Deno.test('learn: at most max ids (5000 by default)', () => {
  const ids = Array.from({ length: 6000 }, (_, i) => i.toString(16).padStart(24, '0'));
  const text = JSON.stringify({ data: ids });
  assert.equal(idsInAnswer(text).length, 5000);
  assert.deepEqual(idsInAnswer(text, 3), ids.slice(0, 3));
  assert.deepEqual(idsInAnswer(text, 0), []);
});
