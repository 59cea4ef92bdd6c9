/**
 * The streaming id scan reads what the text scan reads (src/graphql/learn.ts idsInAnswer), however
 * the answer is cut into chunks: table cases cut at every place, and generated answers against the
 * text scan (fast-check).
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { idsInAnswer } from '../../src/graphql/learn.ts';
import { AnswerIdScanner } from '../../src/graphql/learn_stream.ts';

const enc = new TextEncoder();
const A = 'a'.repeat(24);
const B = '0123456789ABCDEF01234567';

function scanCut(text: string, cuts: number[], max?: number): string[] {
  const bytes = enc.encode(text);
  const scanner = new AnswerIdScanner(max);
  let from = 0;
  for (const at of [...cuts, bytes.length]) {
    scanner.push(bytes.subarray(from, at));
    from = at;
  }
  return scanner.ids();
}

const CASES = [
  `{"data":{"file":{"id":"${A}","url":"https://x/${B}"}}}`,
  `{"id":"${A}","again":"${A}","other":"${B}"}`,
  `{"s":"\\"${A}\\"","t":"${B}"}`,
  `{"s":"\\\\"${A}"}`,
  `{"x":"${A}0","y":"${A.slice(1)}","z":"abc","w":"${B}"}`,
  `"${A}""${B}"`,
  `{"id":"${A.toUpperCase()}"}`,
];

Deno.test('the streaming scan reads what the text scan reads, cut at every place', () => {
  for (const text of CASES) {
    const expected = idsInAnswer(text);
    for (let at = 0; at <= text.length; at++) {
      assert.deepEqual(scanCut(text, [at]), expected, `${text} cut at ${at}`);
    }
    assert.deepEqual(scanCut(text, [...text].map((_, i) => i)), expected, `${text} byte by byte`);
  }
});

Deno.test('the streaming scan keeps at most max ids (5,000 by default)', () => {
  const ids = Array.from({ length: 5_001 }, (_, i) => i.toString(16).padStart(24, '0'));
  const text = JSON.stringify({ ids });
  assert.equal(scanCut(text, [1000, 70_000]).length, 5_000);
  assert.deepEqual(scanCut(text, [], 2), ids.slice(0, 2));
});

Deno.test('generated answers: the streaming scan equals the text scan (fast-check)', () => {
  const piece = fc.oneof(
    fc.constantFrom('"', '\\', '\\"', ',', ':', '{', '}', A, B, 'g', ' '),
    fc.stringMatching(/^[0-9a-f]{20,26}$/),
  );
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 40 }), fc.array(fc.nat(400)), (parts, cuts) => {
      const text = parts.join('');
      const sorted = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
      assert.deepEqual(scanCut(text, sorted), idsInAnswer(text));
    }),
    { numRuns: 500 },
  );
});
