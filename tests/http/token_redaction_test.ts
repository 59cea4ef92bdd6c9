/**
 * The one replacement of the master token (src/http/token_redaction.ts; SPEC "What the service
 * does" 1, docs/operations.md "The master token in answers"): the forms searched, text held
 * whole, a byte stream cut at every place, and copies cut short.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  cutCopyMin,
  REDACTED,
  redactText,
  tokenForms,
  TokenRedactor,
} from '../../src/http/token_redaction.ts';

const TOKEN = 'tok/EN+abc123==';
const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

/** The bytes a redactor gives for `chunks` pushed one by one, then ended. */
function streamed(token: string, chunks: readonly Uint8Array[]): { out: Uint8Array; held: number } {
  const redactor = new TokenRedactor(token);
  const parts: Uint8Array[] = [];
  let held = 0;
  for (const chunk of chunks) {
    parts.push(redactor.push(chunk));
    held = Math.max(held, redactor.heldBytes);
  }
  parts.push(redactor.end());
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return { out, held };
}

/** `bytes` cut at `cuts` (ascending offsets). */
function cutAt(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.byteLength]) {
    out.push(bytes.slice(from, cut));
    from = cut;
  }
  return out;
}

Deno.test('the forms searched: as is, JSON-escaped, and with / written \\/', () => {
  assert.deepEqual(tokenForms('abc123'), ['abc123']);
  assert.deepEqual(tokenForms(TOKEN), ['tok\\/EN+abc123==', TOKEN]);
  assert.deepEqual(tokenForms('a"b\\c/d'), ['a\\"b\\\\c\\/d', 'a\\"b\\\\c/d', 'a"b\\c/d']);
});

Deno.test('text: every form is replaced; text without the token is returned as it is', () => {
  assert.equal(
    redactText(`Token rejected: Bearer ${TOKEN}; again ${TOKEN}`, TOKEN),
    `Token rejected: Bearer ${REDACTED}; again ${REDACTED}`,
  );
  const json = JSON.stringify({ message: `bad ${TOKEN}` }).replaceAll('/', '\\/');
  const out = redactText(json, TOKEN);
  assert.deepEqual(JSON.parse(out), { message: `bad ${REDACTED}` });
  const quoted = 'q"uo\\te';
  assert.deepEqual(
    JSON.parse(redactText(JSON.stringify({ m: `x ${quoted} y` }), quoted)),
    { m: `x ${REDACTED} y` },
  );
  const plain = 'nothing to hide';
  assert.equal(redactText(plain, TOKEN), plain);
  assert.equal(redactText(`has ${TOKEN}`, null), `has ${TOKEN}`);
  assert.equal(redactText(`has ${TOKEN}`, ''), `has ${TOKEN}`);
});

Deno.test('a copy cut short: half the form or more is replaced, wherever it stops', () => {
  const min = cutCopyMin(TOKEN.length);
  assert.equal(min, 8);
  assert.equal(cutCopyMin(40), 20);
  assert.equal(cutCopyMin(5), 5);
  for (let k = min; k < TOKEN.length; k++) {
    const cut = TOKEN.slice(0, k);
    // at the end of the text (a message or a close reason cut there)
    assert.equal(
      redactText(`Token rejected: Bearer ${cut}`, TOKEN),
      `Token rejected: Bearer ${REDACTED}`,
    );
    // in the middle, where something else follows
    assert.equal(
      redactText(`Bearer ${cut}... (truncated)`, TOKEN),
      `Bearer ${REDACTED}... (truncated)`,
    );
    assert.equal(redactText(`"${cut}x"`, TOKEN), `"${REDACTED}x"`);
  }
  // the JSON-escaped form cut short
  const escaped = tokenForms(TOKEN)[0];
  assert.equal(redactText(`{"m":"${escaped.slice(0, 10)}`, TOKEN), `{"m":"${REDACTED}`);
  // shorter than the least: left as it is
  const short = `Bearer ${TOKEN.slice(0, min - 1)}`;
  assert.equal(redactText(short, TOKEN), short);
  // a long token: under half of it is left, half is replaced
  const long = 'k'.repeat(20) + 'Z'.repeat(20);
  assert.equal(cutCopyMin(long.length), 20);
  assert.equal(redactText(`a ${long.slice(0, 19)}`, long), `a ${long.slice(0, 19)}`);
  assert.equal(redactText(`a ${long.slice(0, 20)}`, long), `a ${REDACTED}`);
  assert.equal(redactText(`a ${long.slice(0, 30)}!${long}`, long), `a ${REDACTED}!${REDACTED}`);
});

Deno.test('stream: an answer that ends inside the token is replaced, however it is cut', () => {
  for (let k = cutCopyMin(TOKEN.length); k <= TOKEN.length; k++) {
    const text = `{"errors":[{"message":"Token rejected: Bearer ${TOKEN.slice(0, k)}`;
    const whole = enc(text);
    const expected = `{"errors":[{"message":"Token rejected: Bearer ${REDACTED}`;
    for (let cut = 0; cut <= whole.byteLength; cut++) {
      assert.equal(
        dec(streamed(TOKEN, cutAt(whole, [cut])).out),
        expected,
        `${k} bytes, cut at ${cut}`,
      );
    }
  }
});

Deno.test('stream: the token split at every place across two chunks is replaced', () => {
  const text = `{"errors":[{"message":"Token rejected: Bearer ${TOKEN}"}],"x":"${TOKEN}"}`;
  const whole = enc(text);
  const expected = redactText(text, TOKEN);
  assert.ok(!expected.includes(TOKEN));
  for (let cut = 0; cut <= whole.byteLength; cut++) {
    const { out, held } = streamed(TOKEN, cutAt(whole, [cut]));
    assert.equal(dec(out), expected, `cut at ${cut}`);
    assert.ok(held <= enc(tokenForms(TOKEN)[0]).byteLength - 1, `held ${held} at ${cut}`);
  }
  assert.equal(dec(streamed(TOKEN, cutAt(whole, [...whole.keys()].slice(1))).out), expected);
});

Deno.test('stream: the escaped form split at every place across three chunks is replaced', () => {
  const escaped = tokenForms(TOKEN)[0];
  const whole = enc(`a${escaped}b${TOKEN}`);
  const expected = `a${REDACTED}b${REDACTED}`;
  for (let i = 0; i <= whole.byteLength; i++) {
    for (let j = i; j <= whole.byteLength; j++) {
      assert.equal(dec(streamed(TOKEN, cutAt(whole, [i, j])).out), expected, `cuts ${i}, ${j}`);
    }
  }
});

Deno.test('stream: binary bytes around the token pass unchanged', () => {
  const before = new Uint8Array([0xff, 0x00, 0xc3, 0x28, 0x80]);
  const after = new Uint8Array([0xfe, 0xed, 0x00]);
  const whole = new Uint8Array([...before, ...enc(TOKEN), ...after]);
  const expected = new Uint8Array([...before, ...enc(REDACTED), ...after]);
  for (let cut = 0; cut <= whole.byteLength; cut++) {
    assert.deepEqual(streamed(TOKEN, cutAt(whole, [cut])).out, expected, `cut at ${cut}`);
  }
  const clean = new Uint8Array([...before, ...after, ...before]);
  assert.deepEqual(streamed(TOKEN, [clean]).out, clean);
});

Deno.test('stream: any cuts give what the whole gives, and hold at most the longest form - 1', () => {
  const alphabet = [
    'a',
    'b',
    '/',
    '\\',
    TOKEN.slice(0, 4),
    TOKEN.slice(0, 9),
    TOKEN.slice(0, 13),
    TOKEN,
    tokenForms(TOKEN)[0],
    tokenForms(TOKEN)[0].slice(0, 11),
    'é',
  ];
  const least = TOKEN.slice(0, cutCopyMin(TOKEN.length));
  const longest = enc(tokenForms(TOKEN)[0]).byteLength;
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom(...alphabet), { maxLength: 30 }),
      fc.array(fc.nat(), { maxLength: 8 }),
      (pieces, rawCuts) => {
        const whole = enc(pieces.join(''));
        const cuts = [...new Set(rawCuts.map((c) => c % (whole.byteLength + 1)))].sort((a, b) =>
          a - b
        );
        const once = streamed(TOKEN, [whole]).out;
        const { out, held } = streamed(TOKEN, cutAt(whole, cuts));
        return dec(out) === dec(once) && !dec(out).includes(least) &&
          dec(once) === redactText(pieces.join(''), TOKEN) && held <= longest - 1;
      },
    ),
    { numRuns: 500 },
  );
});

Deno.test('stream: a self-overlapping token is replaced as in the whole text', () => {
  for (const text of ['aaaa', 'aaaaa', 'xaaay', 'aaaaaaa']) {
    const whole = enc(text);
    for (let cut = 0; cut <= whole.byteLength; cut++) {
      assert.equal(dec(streamed('aaa', cutAt(whole, [cut])).out), redactText(text, 'aaa'));
    }
  }
});
