/**
 * The token limit bounds the parse itself (src/graphql/parse_cache.ts; graphqlMaxTokens,
 * docs/configuration.md "Document checks and fences"): a text of exactly the limit parses, one
 * token more stops the parser at that token, so a long document is neither lexed nor built
 * past it; the parse cache does not hold a stopped text; a body's analysis leaves the stopped
 * entry to the cost limits; the registry's step 10 reads no further than its longest document.
 */
import assert from 'node:assert/strict';
import { Lexer, Source, TokenKind } from 'graphql';
import { appOperations } from '../../scripts/sandbox/mod.ts';
import {
  analyzeBody,
  buildRegistry,
  ParseCache,
  parseDocument,
  registryCheck,
} from '../../src/graphql/mod.ts';
import { tokensOf } from '../../src/graphql/parse_cache.ts';

/** `{ f0 f1 ... }` with exactly `tokens` tokens (two braces and tokens - 2 fields). */
function fields(tokens: number): string {
  const names = Array.from({ length: tokens - 2 }, (_, i) => `f${i}`);
  return `{ ${names.join(' ')} }`;
}

/** A document of plain fields just under `chars` characters. */
function longDocument(chars: number): string {
  const parts: string[] = ['{'];
  let length = 2;
  for (let i = 0; length < chars - 16; i++) {
    const name = ` f${i}`;
    parts.push(name);
    length += name.length;
  }
  parts.push(' }');
  return parts.join('');
}

/** Tokens of a text as the lexer gives them (comments and the end marker not counted). */
function lexed(text: string): number {
  const lexer = new Lexer(new Source(text));
  let n = 0;
  while (lexer.advance().kind !== TokenKind.EOF) n++;
  return n;
}

/** Runs `act` counting the lexer's advances (every token the parser or a key reads). */
function countingAdvances<T>(act: () => T): { result: T; advances: number } {
  const original = Lexer.prototype.advance;
  let advances = 0;
  Lexer.prototype.advance = function (this: Lexer) {
    advances++;
    return original.call(this);
  };
  try {
    return { result: act(), advances };
  } finally {
    Lexer.prototype.advance = original;
  }
}

const stopped = (r: ReturnType<typeof parseDocument>) => 'tokenLimit' in r;

Deno.test('token limit: exactly the limit parses, one token more stops the parse', () => {
  for (const limit of [3, 4, 20, 5000]) {
    const at = parseDocument(fields(limit), limit);
    assert.ok('kind' in at, `${limit} tokens under a limit of ${limit}`);
    assert.equal(tokensOf(at, fields(limit)), limit);
    const over = parseDocument(fields(limit + 1), limit);
    assert.ok(stopped(over), `${limit + 1} tokens under a limit of ${limit}`);
  }
  // comments, commas and whitespace are not tokens; punctuators and strings are
  const text = '# lead\nquery Q($a: [Int!] = [1, 2]) { a(x: """b\nc""", y: $a) @skip(if: false) }';
  const n = lexed(text);
  assert.ok('kind' in parseDocument(text, n));
  assert.ok(stopped(parseDocument(text, n - 1)));
  assert.ok(stopped(parseDocument(`${text} # trailing`, n - 1)));
});

Deno.test("token limit: the parser's count is the cost measure on every shipped document", () => {
  const documents = appOperations();
  assert.ok(documents.length > 500);
  for (const op of documents) {
    const n = lexed(op.query);
    const whole = parseDocument(op.query, n);
    assert.ok('kind' in whole, op.name);
    assert.equal(tokensOf(whole, op.query), n, op.name);
    assert.ok(stopped(parseDocument(op.query, n - 1)), op.name);
  }
});

Deno.test('token limit: a 2 MiB document past the limit is read no further than the limit', () => {
  const text = longDocument(2 * 1024 * 1024);
  const total = lexed(text);
  assert.ok(total > 250_000, `${total} tokens`);
  const limited = countingAdvances(() => parseDocument(text, 5000));
  assert.ok(stopped(limited.result));
  assert.ok(limited.advances <= 5001, `${limited.advances} tokens read`);
  // the spy sees a whole parse: every token read
  const whole = countingAdvances(() => parseDocument(text));
  assert.ok('kind' in whole.result);
  assert.ok(whole.advances >= total, `${whole.advances} tokens read of ${total}`);
});

Deno.test('token limit: the parse stops before a syntax error further on', () => {
  const text = `${fields(30).slice(0, -1)} a( }`;
  assert.match((parseDocument(text) as { parseError: string }).parseError, /Syntax Error/);
  assert.ok(stopped(parseDocument(text, 20)));
  // a syntax error before the limit is the syntax error
  assert.ok(!stopped(parseDocument('{ a( } b c d e', 20)));
});

Deno.test('parse cache: a stopped parse is not held; a held document is refused under a lower limit', () => {
  const cache = new ParseCache();
  assert.ok(stopped(cache.get(fields(21), 20)));
  assert.equal(cache.size, 0, 'the stopped text is not held');
  const doc = cache.get(fields(20), 20);
  assert.ok('kind' in doc);
  assert.equal(cache.size, 1);
  assert.equal(cache.get(fields(20)), doc, 'held under no limit');
  assert.equal(cache.get(fields(20), 25), doc, 'held under a higher limit');
  assert.ok(stopped(cache.get(fields(20), 19)), 'past a lower limit');
  assert.equal(cache.get(fields(20), 20), doc);
  cache.forget(fields(20));
  assert.equal(cache.size, 0);
});

Deno.test('parse cache: a syntax failure held under one limit is parsed again under a lower one', () => {
  const cache = new ParseCache();
  const text = `${fields(30).slice(0, -1)} a( }`;
  const failure = cache.get(text, 100);
  assert.ok('parseError' in failure && !stopped(failure));
  assert.equal(cache.get(text, 200), failure);
  assert.ok(stopped(cache.get(text, 20)), 'under 20 the parse stops before the error');
});

Deno.test('analyzeBody: the stopped entry is left to the cost limits; a malformed entry after it still wins', () => {
  const ok = { query: '{ a }' };
  const over = { query: fields(30) };
  const body = analyzeBody([ok, over, ok], { maxTokens: 20, cache: new ParseCache() });
  assert.ok(!('code' in body));
  assert.equal(body.tokenLimitAt, 1);
  assert.equal(body.analyses.length, 1, 'only the entries before the stopped one');
  const malformed = analyzeBody([over, { query: '{ a(' }], { maxTokens: 20 });
  assert.ok('code' in malformed);
  assert.equal(malformed.code, 'ProxyMalformedQuery');
  const none = analyzeBody([ok, ok], { maxTokens: 20 });
  assert.ok(!('code' in none));
  assert.equal(none.tokenLimitAt, null);
  assert.equal(none.analyses.length, 2);
});

Deno.test('registry: a text past the limit is not in the registry, read no further than its longest key', () => {
  const registry = buildRegistry(['query A { a b }', '{ c }']);
  const code = (query: string, max?: number) => {
    const r = registryCheck(registry, { query }, max);
    return 'code' in r ? r.code : 'forwarded';
  };
  assert.equal(code('query A{a b}', 20), 'forwarded');
  assert.equal(code(fields(21), 20), 'OperationNotInRegistry');
  assert.equal(code(`${fields(30).slice(0, -1)} a( }`, 20), 'OperationNotInRegistry');
  assert.equal(code('{ a( }', 20), 'ProxyMalformedQuery');
  const text = longDocument(2 * 1024 * 1024);
  const counted = countingAdvances(() => code(text, 5000));
  assert.equal(counted.result, 'OperationNotInRegistry');
  // the key lookup stops past the longest key (6 characters), the parse past 5000 tokens
  assert.ok(counted.advances <= 5001 + 10, `${counted.advances} tokens read`);
});
