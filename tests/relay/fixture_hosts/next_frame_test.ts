/**
 * The relay's fast path for upstream `next` frames (src/ws/next_frame.ts) against the object
 * path it stands for (parseUpstreamFrame + rebuildResult + JSON.stringify): it takes only valid
 * next frames, emits what the object path would (read back as the same value), and leaves every
 * other frame to the object path (null).
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MAX_DEPTH, scanNext } from '../../../src/ws/next_frame.ts';
import { parseUpstreamFrame, rebuildResult, serialiseNext } from '../../../src/ws/frames.ts';

/** The object path's frame for `text`, or null when it refuses it or it is not a next. */
function objectPath(text: string): string | null {
  const parsed = parseUpstreamFrame(text);
  if (!parsed.ok || parsed.message.type !== 'next') return null;
  return serialiseNext(parsed.message.id, JSON.stringify(rebuildResult(parsed.message.payload)));
}

/** The fast path's frame for `text`, or null (a frame taken as its own text must be that frame). */
function fastPath(text: string): string | null {
  const fast = scanNext(text);
  if (fast === null) return null;
  assert.equal(fast.idJson, JSON.stringify(fast.id));
  const written = serialiseNext(fast.id, fast.payload, fast.idJson);
  if (fast.frame !== null) assert.equal(fast.frame, written, text);
  return written;
}

Deno.test('next frames: only the protocol fields leave, in the object path order', () => {
  const cases: [string, string][] = [
    [
      '{"id":"1","type":"next","payload":{"data":{"a":1}}}',
      '{"id":"1","type":"next","payload":{"data":{"a":1}}}',
    ],
    [
      ' { "type" : "next" , "payload" : {"extensions":{"x":[1, 2.5e3]},"hasNext":true,' +
      '"data":null,"junk":{"token":1}} , "id":"s-1","extra":[{}]}\n',
      '{"id":"s-1","type":"next","payload":{"data":null,"hasNext":true,"extensions":{"x":[1, 2.5e3]}}}',
    ],
    // the last of a repeated key wins, as with JSON.parse
    [
      '{"id":"1","type":"next","payload":{"data":1},"payload":{"data":"two\\n\\"q\\""}}',
      '{"id":"1","type":"next","payload":{"data":"two\\n\\"q\\""}}',
    ],
    ['{"id":"1","type":"next","payload":{}}', '{"id":"1","type":"next","payload":{}}'],
    [
      '{"id":"1","type":"next","payload":{"data":[-0.5,1e3,-12,0,1.5E-7]}}',
      '{"id":"1","type":"next","payload":{"data":[-0.5,1e3,-12,0,1.5E-7]}}',
    ],
  ];
  for (const [input, want] of cases) {
    assert.equal(fastPath(input), want, input);
    assert.deepEqual(JSON.parse(want), JSON.parse(objectPath(input)!), input);
  }
});

Deno.test('next frames: everything else is left to the object path', () => {
  const deep = `{"id":"1","type":"next","payload":{"data":${'['.repeat(MAX_DEPTH)}${
    ']'.repeat(MAX_DEPTH)
  }}}`;
  const cases = [
    '{"id":"1","type":"next","payload":{"data":{},"errors":[{"message":"m"}]}}', // rewriting
    '{"id":"1","type":"next","payload":{"data":"\\u0041"}}', // an escape written otherwise
    '{"id":"1","type":"next","payload":{"data":"a\\/b"}}',
    '{"id":"1","type":"next","payload":{"d\\u0061ta":1}}', // an escaped key
    '{"id":"a\\"b","type":"next","payload":{}}', // an escaped id
    '{"id":"","type":"next","payload":{}}',
    '{"id":1,"type":"next","payload":{}}',
    '{"type":"next","payload":{}}',
    '{"id":"1","type":"next"}',
    '{"id":"1","type":"next","payload":[]}',
    '{"id":"1","type":"next","payload":{"data":1},"payload":null}',
    '{"id":"1","type":"complete"}',
    '{"id":"1","type":"subscribe","payload":{}}',
    '{"id":"1","type":"next","payload":{"data":1e400}}', // reads as Infinity; written null
    '{"id":"1","type":"next","payload":{"data":-0}}', // reads as -0; written 0
    '{"id":"1","type":"next","payload":{"data":-0.0e5}}',
    '{"id":"1","type":"next","payload":{"data":01}}', // not JSON from here on
    '{"id":"1","type":"next","payload":{"data":"a\tb"}}',
    '{"id":"1","type":"next","payload":{"data":tru}}',
    '{"id":"1","type":"next","payload":{"data":1,}}',
    '{"id":"1","type":"next","payload":{"data":1}} x',
    '{"id":"1","type":"next","payload":{"data":[1 2]}}',
    '{"id":"1","type":"next","payload":{"data":"open}}',
    '{"id":"1","type":"next","payload":{"data":-}}',
    '{"id":"1","type":"next","payload":{"data":1.}}',
    '{"id":"1","type":"next","payload":{"data":1e}}',
    '{"id":"1","type":"next","payload":{"data":{1:2}}}',
    '',
    deep,
  ];
  for (const text of cases) assert.equal(scanNext(text), null, text);
});

Deno.test('next frames: a frame written as the relay writes it leaves as its own text', () => {
  const own = [
    '{"id":"1","type":"next","payload":{"data":{"a":[1,"x\\n",null,true]}}}',
    '{"id":"s-1","type":"next","payload":{"data":null,"hasNext":true,"extensions":{"x":[1, 2]}}}',
    '{"id":"1","type":"next","payload":{"hasNext":false}}',
    '{"id":"1","type":"next","payload":{}}',
  ];
  for (const text of own) {
    assert.equal(scanNext(text)?.frame, text, text);
    assert.equal(fastPath(text), text);
  }
  const rewritten = [
    '{"id":"1","type":"next","payload":{"data":1} }', // whitespace between members
    '{"id":"1", "type":"next","payload":{"data":1}}',
    '{"id":"1","type":"next","payload":{ "data":1}}',
    '{"id":"1","type":"next","payload":{"hasNext":true,"data":1}}', // another order
    '{"id":"1","type":"next","payload":{"data":1,"data":2}}', // a repeated member
    '{"id":"1","type":"next","payload":{"data":1,"label":"x"}}', // a field that does not travel
    '{"id":"1","type":"next","payload":{"data":1},"x":1}',
    '{"type":"next","id":"1","payload":{"data":1}}',
  ];
  for (const text of rewritten) {
    const fast = scanNext(text);
    assert.ok(fast !== null, text);
    assert.equal(fast.frame, null, text);
    assert.deepEqual(JSON.parse(fastPath(text)!), JSON.parse(objectPath(text)!), text);
  }
});

Deno.test('next frames: long strings are checked whole wherever their fault sits', () => {
  // strings past the hand-scanned run and the parser's threshold (300 and 2000 characters), a
  // fault at their start, middle and end
  for (const length of [300, 2000]) {
    for (const at of [0, length >> 1, length - 1]) {
      const body = (put: string) => 'x'.repeat(at) + put + 'x'.repeat(length - at);
      const frame = (text: string) => `{"id":"1","type":"next","payload":{"data":{"s":"${text}"}}}`;
      const taken = [body(''), body('\\n'), body('\\"'), body('\\\\'), body('\ud800'), body('é')];
      for (const text of taken.map(frame)) {
        const fast = fastPath(text);
        assert.ok(fast !== null, text.slice(0, 80));
        assert.deepEqual(JSON.parse(fast), JSON.parse(objectPath(text)!), text.slice(0, 80));
      }
      // control characters, escapes written otherwise, a quote cut by its escape, a body cut off
      const left = [body('\u0001'), body('\t'), body('\\u0041'), body('\\/'), body('\\')];
      for (const text of left.map(frame)) assert.equal(scanNext(text), null, text.slice(0, 80));
      assert.equal(scanNext(`{"id":"1","type":"next","payload":{"data":"${body('')}`), null);
      assert.equal(scanNext(`{"id":"1","type":"next","payload":{"${body('')}":1}}`)?.payload, '{}');
      assert.equal(scanNext(`{"id":"1","type":"next","payload":{"${body('\\n')}":1}}`), null);
    }
  }
});

/** A next frame around arbitrary JSON values, keys in any order, extra keys at both levels. */
const nextFrames = fc.record({
  id: fc.string({ minLength: 1, maxLength: 8 }).filter((s) => JSON.stringify(s) === `"${s}"`),
  result: fc.dictionary(
    fc.constantFrom('data', 'hasNext', 'extensions', 'label', 'path'),
    fc.jsonValue({ maxDepth: 4 }),
  ),
  extra: fc.dictionary(fc.constantFrom('x', 'meta', 'payloads'), fc.jsonValue({ maxDepth: 2 })),
  space: fc.constantFrom(0, 1, '\t'),
}).map(({ id, result, extra, space }) =>
  JSON.stringify({ ...extra, type: 'next', payload: result, id }, null, space)
);

/** A next frame written as the relay writes it: no whitespace, result fields in order. */
const ownFrames = fc.record({
  id: fc.string({ minLength: 1, maxLength: 8 }).filter((s) => JSON.stringify(s) === `"${s}"`),
  data: fc.option(fc.jsonValue({ maxDepth: 4 }), { nil: undefined }),
  hasNext: fc.option(fc.boolean(), { nil: undefined }),
  extensions: fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }),
}).map(({ id, ...result }) => JSON.stringify({ id, type: 'next', payload: result }));

Deno.test('next frames: what the fast path takes reads back as what the object path emits', () => {
  let taken = 0;
  fc.assert(
    fc.property(fc.oneof(nextFrames, ownFrames), (text) => {
      const fast = fastPath(text);
      if (fast === null) return; // left to the object path (e.g. a \u escape)
      taken++;
      assert.deepEqual(JSON.parse(fast), JSON.parse(objectPath(text)!));
    }),
    { numRuns: 2000 },
  );
  assert.ok(taken > 400, `the fast path took ${taken} of 2000`);
});

Deno.test('next frames: a frame broken anywhere is never taken unless it is still JSON', () => {
  const broken = fc.tuple(
    fc.oneof(nextFrames, ownFrames),
    fc.nat(),
    fc.constantFrom('', '"', '\\', '{', ']', ',', 'e', '\n', '\u0001'),
  )
    .map(([text, at, put]) => {
      const i = at % (text.length + 1);
      return text.slice(0, i) + put + text.slice(i + (put === '' ? 1 : 0));
    });
  fc.assert(
    fc.property(broken, (text) => {
      const fast = fastPath(text);
      if (fast === null) return;
      assert.deepEqual(JSON.parse(fast), JSON.parse(objectPath(text)!));
    }),
    { numRuns: 5000 },
  );
});
