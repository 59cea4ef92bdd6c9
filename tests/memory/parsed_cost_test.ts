/**
 * What a JSON body's parsed value is counted at before it is parsed (src/http/body.ts
 * parsedJsonCost, docs/operations.md "Memory") is never less than what the value holds: for each
 * shape the defaults' factors were measured on, and a few beside them, the V8 heap in use after
 * forced collections grows by at most the estimate when the body is parsed and kept (the resident
 * growth it was measured at is larger still: scripts/bench/representation_cost.mjs). A body of one
 * long string is counted at its characters, not at the worst shape's bytes a byte.
 */
import assert from 'node:assert/strict';
import process from 'node:process';
import { parsedJsonCost } from '../../src/http/body.ts';
import { garbageCollector } from '../../src/memory/resident.ts';
import { DEFAULTS } from '../../src/config/defaults.ts';

const BYTES = 512 * 1024;

/** `unit(i)` repeated inside a variables array until the body is about BYTES long. */
function wide(unit: (i: number) => string): string {
  const parts: string[] = [];
  let n = 0;
  for (let i = 0; n < BYTES; i++) {
    const u = (i ? ',' : '') + unit(i);
    parts.push(u);
    n += u.length;
  }
  return `{"query":"query Q($v: [In]) { a }","variables":{"v":[${parts.join('')}]}}`;
}

const SHAPES: Record<string, string> = {
  'empty objects': wide(() => '{}'),
  'empty arrays': wide(() => '[]'),
  'nested arrays': wide(() => '[[[]]]'),
  'objects with distinct keys': wide((i) => `{"${i.toString(36)}":1}`),
  'objects with long distinct keys': wide((i) => `{"key_${i.toString(36).padStart(12, '0')}":1}`),
  'small objects': wide(() => '{"a":1,"b":"x"}'),
  'digits': wide((i) => String(i % 10)),
  'strings': wide((i) => `"${i.toString(36)}"`),
  'two-byte strings': wide((i) => `"\u00e9\u4e2d${i}"`),
  'one long string': JSON.stringify({ query: 'query Q { ' + 'a '.repeat(BYTES / 2) + '}' }),
};

Deno.test('the parsed value of each shape holds at most what it was counted at', () => {
  const gc = garbageCollector();
  assert.ok(gc, 'the runtime offers a collector');
  const heap = () => {
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };
  for (const [shape, text] of Object.entries(SHAPES)) {
    const before = heap();
    const parsed = JSON.parse(text);
    const held = heap() - before;
    const counted = parsedJsonCost(text);
    assert.ok(parsed !== null);
    assert.ok(held <= counted, `${shape}: ${held} bytes held, counted ${counted}`);
  }
  const long = SHAPES['one long string'];
  assert.ok(parsedJsonCost(long) <= long.length * 2 + 1000, 'one long string: at its characters');
});

Deno.test('marks inside strings are not counted; escaped quotes keep the string open', () => {
  const plain = JSON.stringify({ query: 'x'.repeat(10_000) });
  const marked = JSON.stringify({ query: 'a: b, [c] {d} \\" e: f, '.repeat(400) });
  const perChar = (text: string) => parsedJsonCost(text) / text.length;
  assert.ok(perChar(marked) <= perChar(plain) + 0.1, `${perChar(marked)} a character`);
  const { memoryParsedPerByte: perByte, memoryParsedPerMark: perMark } = DEFAULTS;
  assert.equal(parsedJsonCost('[{},{}]'), Math.min(7 * perByte, 4 * perMark + 7 * 2));
  // an escaped backslash closes its string: the objects after it are counted
  const afterBackslash = '["\\\\"' + ',{}'.repeat(100) + ']';
  const expected = 201 * perMark + afterBackslash.length * 2;
  assert.equal(parsedJsonCost(afterBackslash), Math.min(afterBackslash.length * perByte, expected));
});
