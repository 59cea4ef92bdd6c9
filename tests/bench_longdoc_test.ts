/**
 * The 'longdoc' bench scenario's pieces (scripts/bench/long_document.ts,
 * scripts/bench/scenarios/long_document.ts), driven for real and briefly: the document fits the
 * body limit and is far past the token limit; the whole-parse baseline runs on Node and on Deno;
 * one small round against real gateways of both hosts, every answer the refusal it names. Figures
 * are never asserted against a speed.
 */
import assert from 'node:assert/strict';
import { Lexer, Source, TokenKind } from 'graphql';
import { longDocument, parseWhole } from '../scripts/bench/long_document.ts';
import { createContext } from '../scripts/bench/context.ts';
import { startFixedUpstream } from '../scripts/bench/scenarios/targets.ts';
import { hostRanges, type HostRound, startHost } from '../scripts/bench/scenarios/long_document.ts';
import { DEFAULTS } from '../src/config/defaults.ts';

function tokens(text: string): number {
  const lexer = new Lexer(new Source(text));
  let n = 0;
  while (lexer.advance().kind !== TokenKind.EOF) n++;
  return n;
}

Deno.test('longDocument: a body under 2 MiB, far past the token limit', () => {
  const { query, body } = longDocument();
  assert.ok(
    body.length < 2 * 1024 * 1024 && body.length > 2 * 1024 * 1024 - 2048,
    `${body.length}`,
  );
  assert.deepEqual(JSON.parse(body), { query });
  assert.ok(tokens(query) > 50 * DEFAULTS.graphqlMaxTokens);
  const small = longDocument(64 * 1024);
  assert.ok(small.body.length <= 64 * 1024);
});

Deno.test('parseWhole: graphql-js parses the document whole on Node and on Deno', async () => {
  const { query } = longDocument(16 * 1024);
  for (const kind of ['node', 'deno'] as const) {
    const whole = await parseWhole(kind, query, 2);
    assert.equal(whole.tokens, tokens(query), kind);
    assert.ok(Number.isFinite(whole.cpuMsPerParse) && whole.cpuMsPerParse >= 0, kind);
  }
});

Deno.test('longdoc round: both hosts refuse with the token limit, and parse whole without it', async () => {
  const upstream = await startFixedUpstream();
  const context = createContext(
    { durationS: 0.2, warmupS: 0, roundS: 0.2, pin: false },
    upstream,
    'unused',
  );
  try {
    const plan = {
      document: longDocument(64 * 1024),
      parses: 1,
      requests: { limit: 3, 'limit, budget off': 3, 'limit off': 2 },
      burst: 2,
      bursts: 2,
    };
    for (const kind of ['deno', 'node'] as const) {
      const host = await startHost(context, kind, plan);
      assert.deepEqual(host.memory.limit.statuses, { '400 TooManyTokens': 4 }, kind);
      assert.deepEqual(host.memory['limit, budget off'].statuses, { '400 TooManyTokens': 4 }, kind);
      assert.deepEqual(host.memory['limit off'].statuses, { '400 TooManyRootFields': 4 }, kind);
      const round: HostRound = await host.round();
      assert.deepEqual(round.statuses, {
        limit: { '400 TooManyTokens': 3 },
        'limit, budget off': { '400 TooManyTokens': 3 },
        'limit off': { '400 TooManyRootFields': 2 },
      }, kind);
      assert.equal(round.tokens, tokens(plan.document.query));
      const figures = hostRanges(kind, [round]).map((r) => r.figure);
      assert.deepEqual(figures, [
        'whole parse cpu ms',
        'refused cpu ms (limit)',
        'refused (limit) cpu x whole parse',
        'refused (limit, budget off) cpu x whole parse',
        'refused (limit off) cpu x whole parse',
      ]);
    }
  } finally {
    await context.stopGateways();
    await upstream.stop();
  }
});
