/**
 * The GraphQL cost limits right after step 11 (not spec rows;
 * docs/configuration.md "Document checks and fences"), on both hosts, over
 * HTTP and on the socket: each limit at its boundary (equal passes and is forwarded, one over
 * is refused 400 with its own code and nothing reaches the upstream), set through the
 * environment variables of src/config/defaults.ts.
 */
import assert from 'node:assert/strict';
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
