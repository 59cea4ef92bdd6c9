/**
 * The GraphQL cost limits right after step 11 (not spec rows;
 * docs/configuration.md "Document checks and fences"), on both hosts, over
 * HTTP and on the socket: each limit at its boundary (equal passes and is forwarded, one over
 * is refused 400 with its own code and nothing reaches the upstream), set through the
 * environment variables of src/config/defaults.ts. The token limit stops the parse: a document
 * of nearly 2 MiB past it is refused TooManyTokens even with a syntax error at its end (the
 * parse never got there), and on the Deno host (in this process) the lexer is seen reading no
 * further than the limit.
 */
import assert from 'node:assert/strict';
import { Lexer } from 'graphql';
import {
  assertNothingReached,
  assertRefusal,
  forwarded,
  postGraphql,
} from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';
import { browser } from '../relay/ws_browser.ts';

const env = {
  GRAPHQL_MAX_DEPTH: '3',
  GRAPHQL_MAX_ALIASES: '2',
  GRAPHQL_MAX_ROOT_FIELDS: '2',
  GRAPHQL_MAX_DIRECTIVES: '1',
  GRAPHQL_MAX_TOKENS: '20',
};

/** `{ a(x0: 0 ... ) }` with `n` arguments: 5 + 3n tokens. */
const withArgs = (n: number, extra = '') =>
  `{ a(${Array.from({ length: n }, (_, i) => `x${i}: ${i}`).join(' ')})${extra} }`;

/** [limit, at the boundary (passes), one over (refused), code]. */
const BOUNDARIES: [string, string, string, string][] = [
  ['depth 3', '{ a { b { c } } }', '{ a { b { c { d } } } }', 'QueryTooDeep'],
  ['2 aliases', '{ x: a y: a }', '{ x: a y: a z: a }', 'TooManyAliases'],
  ['2 root fields', '{ a b }', '{ a b c }', 'TooManyRootFields'],
  [
    '1 directive',
    '{ a @include(if: true) }',
    '{ a @include(if: true) b @skip(if: false) }',
    'TooManyDirectives',
  ],
  ['20 tokens', withArgs(5), withArgs(5, ' b'), 'TooManyTokens'],
];

for (const kind of HOSTS) {
  Deno.test(`[${kind}] cost limits over HTTP: equal passes, one over is 400 with its own code`, async () => {
    await withGateway(kind, { env }, async ({ sandbox, gateway }) => {
      for (const [limit, at, over, code] of BOUNDARIES) {
        const before = forwarded(sandbox).length;
        // the sandbox may refuse these made-up fields itself; what matters is that they went
        const passed = await (await postGraphql(gateway.url, { query: at })).text();
        assert.ok(!passed.includes(code), `${limit}: at the limit: ${passed}`);
        assert.equal(forwarded(sandbox).length, before + 1, `${limit}: forwarded at the limit`);
        await assertNothingReached(sandbox, async () => {
          const message = await assertRefusal(
            await postGraphql(gateway.url, { query: over }),
            400,
            code,
          );
          assert.match(message, /graphqlMax/, limit);
          await assertRefusal(
            await postGraphql(gateway.url, [{ query: at }, { query: over }]),
            400,
            code,
          );
        });
      }
    });
  });

  Deno.test(`[${kind}] cost limits on the socket: an error frame with the code, the socket stays open`, async () => {
    await withGateway(kind, { env }, async ({ sandbox, gateway }) => {
      const c = await browser(`${gateway.url.replace('http', 'ws')}/svc/graphql`);
      c.send({ type: 'connection_init' });
      await sandbox.waitFor(() => c.frames.length === 1, 'connection_ack');
      const subscribes = () => sandbox.sockets.flatMap((s) => s.subscribes).length;
      c.send({
        id: 'deep',
        type: 'subscribe',
        payload: { query: 'subscription { a { b { c { d } } } }' },
      });
      await sandbox.waitFor(() => c.frames.length === 2, 'the error frame');
      const frame = c.frames[1] as {
        id: string;
        type: string;
        payload: { extensions: { code: string } }[];
      };
      assert.equal(frame.id, 'deep');
      assert.equal(frame.type, 'error');
      assert.equal(frame.payload[0].extensions.code, 'QueryTooDeep');
      assert.equal(subscribes(), 0, 'the refused subscribe reached the upstream');
      c.send({ id: 'ok', type: 'subscribe', payload: { query: 'subscription { a { b { c } } }' } });
      await sandbox.waitFor(() => subscribes() === 1, 'a subscribe at the limit is relayed');
      c.close();
      await c.closed;
    });
  });
}

/** A body just under the 2 MiB body limit: one document of plain fields, far past 20 tokens. */
function nearly2MiB(tail = ''): string {
  const names: string[] = [];
  let length = 40 + tail.length;
  for (let i = 0; length < 2 * 1024 * 1024 - 64; i++) {
    names.push(`f${i}`);
    length += `f${i}`.length + 1;
  }
  return JSON.stringify({ query: `{ ${names.join(' ')}${tail} }` });
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] token limit: a document of nearly 2 MiB is refused while it is parsed`, async () => {
    await withGateway(kind, { env }, async ({ sandbox, gateway }) => {
      await assertNothingReached(sandbox, async () => {
        await assertRefusal(await postGraphql(gateway.url, nearly2MiB()), 400, 'TooManyTokens');
        // a whole parse would find the syntax error and refuse 400 ProxyMalformedQuery at step 11
        const broken = nearly2MiB(' a(');
        await assertRefusal(await postGraphql(gateway.url, broken), 400, 'TooManyTokens');
        // tokens are a document's first cost limit: past it, its depth is never measured
        await assertRefusal(
          await postGraphql(gateway.url, { query: withArgs(5, ' b { c { d { e } } }') }),
          400,
          'TooManyTokens',
        );
        // step 11 still comes first: a malformed entry after the one past the limit wins
        await assertRefusal(
          await postGraphql(gateway.url, [{ query: withArgs(6) }, { query: '{ a(' }]),
          400,
          'ProxyMalformedQuery',
        );
      });
    });
  });

  Deno.test(`[${kind}] token limit with a registry: a long document is not one the app ships (step 10)`, async () => {
    const options = { operations: ['query A { a }', `query Long ${withArgs(6)}`] };
    await withGateway(kind, { env, options }, async ({ sandbox, gateway }) => {
      await assertNothingReached(sandbox, async () => {
        const long = nearly2MiB(' a(');
        await assertRefusal(await postGraphql(gateway.url, long), 403, 'OperationNotInRegistry');
        await assertRefusal(
          await postGraphql(gateway.url, { query: '{ a(' }),
          400,
          'ProxyMalformedQuery',
        );
        // a registered document past the limit is refused at the cost limits
        await assertRefusal(
          await postGraphql(gateway.url, { query: `query Long ${withArgs(6)}` }),
          400,
          'TooManyTokens',
        );
      });
      const before = forwarded(sandbox).length;
      await (await postGraphql(gateway.url, { query: 'query A{a}' })).text();
      assert.equal(forwarded(sandbox).length, before + 1, 'a registered document is forwarded');
    });
  });

  Deno.test(`[${kind}] token limit on the socket: an error frame TooManyTokens, the socket stays open`, async () => {
    await withGateway(kind, { env }, async ({ sandbox, gateway }) => {
      const c = await browser(`${gateway.url.replace('http', 'ws')}/svc/graphql`);
      c.send({ type: 'connection_init' });
      await sandbox.waitFor(() => c.frames.length === 1, 'connection_ack');
      const subscribes = () => sandbox.sockets.flatMap((s) => s.subscribes).length;
      // 21 tokens, and a syntax error the stopped parse never reaches
      const over = `subscription ${withArgs(5).slice(0, -1)} b c(`;
      c.send({ id: 'long', type: 'subscribe', payload: { query: over } });
      await sandbox.waitFor(() => c.frames.length === 2, 'the error frame');
      const frame = c.frames[1] as { id: string; type: string; payload: Coded[] };
      assert.equal(frame.id, 'long');
      assert.equal(frame.type, 'error');
      assert.equal(frame.payload[0].extensions.code, 'TooManyTokens');
      // 20 tokens with the keyword: at the limit
      const at = 'subscription { a(x0: 0 x1: 1 x2: 2) { b c d } }';
      c.send({ id: 'ok', type: 'subscribe', payload: { query: at } });
      await sandbox.waitFor(() => subscribes() === 1, 'a subscribe at the limit is relayed');
      c.close();
      await c.closed;
    });
  });
}

type Coded = { extensions: { code: string } };
/** Runs `act` counting the lexer's advances in this process (every token read, by any reader). */
async function countingAdvances(act: () => Promise<void>): Promise<number> {
  const original = Lexer.prototype.advance;
  let advances = 0;
  Lexer.prototype.advance = function (this: Lexer) {
    advances++;
    return original.call(this);
  };
  try {
    await act();
  } finally {
    Lexer.prototype.advance = original;
  }
  return advances;
}

for (
  const [label, options, status, code] of [
    ['no registry', {}, 400, 'TooManyTokens'],
    ['a registry', { operations: ['{ a }'] }, 403, 'OperationNotInRegistry'],
  ] as const
) {
  Deno.test(`[deno] token limit, ${label}: the gateway lexes a 2 MiB document no further than the limit`, async () => {
    await withGateway('deno', { env, options }, async ({ gateway }) => {
      const body = nearly2MiB();
      const advances = await countingAdvances(async () => {
        await assertRefusal(await postGraphql(gateway.url, body), status, code);
      });
      // the parse stops at the 21st token; the registry's key past its longest key ('{a}')
      assert.ok(advances <= 21 + 4, `${advances} tokens read`);
    });
  });
}
