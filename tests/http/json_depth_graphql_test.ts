/**
 * JSON nesting on the GraphQL POST, on both hosts (docs/configuration.md JSON_MAX_DEPTH; step 7 of
 * SPEC "Order in which a GraphQL body is checked"): a body at the limit is forwarded whole, one
 * level deeper is 400 ProxyMalformedQuery with nothing reaching the upstream, and bodies nested
 * thousands of levels deep are refused the same way (never 500). At the highest limit the option
 * takes (1000) a body is still forwarded on both hosts, and upstream answers nested past it are
 * never parsed (docs/readings.md "JSON nesting depth").
 */
import assert from 'node:assert/strict';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { DEFAULTS } from '../../src/config/defaults.ts';
import {
  assertNothingReached,
  assertRefusal,
  forwarded,
  postGraphql,
} from '../helpers/assertions.ts';
import { deepBody, nest, nestValue } from '../helpers/deep_json.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';

const QUERY = '{ currentUser { id } }';
const LIMIT = DEFAULTS.jsonMaxDepth;
const HARD_MAX = DEFAULTS.jsonDepthHardMax;

for (const kind of HOSTS) {
  Deno.test(`[${kind}] a body at JSON_MAX_DEPTH is forwarded; one deeper and far deeper are 400`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const atLimit = await postGraphql(gateway.url, deepBody(QUERY, LIMIT));
      assert.equal(atLimit.status, 200, await atLimit.text());
      const sent = forwarded(sandbox).at(-1)!.json as { variables: { x: unknown } };
      assert.deepEqual(sent.variables.x, nestValue(LIMIT - 2), 'the variables travel whole');

      await assertNothingReached(sandbox, async () => {
        for (const depth of [LIMIT + 1, 5_000, 100_000]) {
          const message = await assertRefusal(
            await postGraphql(gateway.url, deepBody(QUERY, depth)),
            400,
            'ProxyMalformedQuery',
          );
          assert.equal(message, `The body nests deeper than ${LIMIT} levels`);
        }
        // a batch holds its entries one level deeper
        const entry = deepBody(QUERY, LIMIT);
        await assertRefusal(
          await postGraphql(gateway.url, `[${entry}]`),
          400,
          'ProxyMalformedQuery',
        );
        // the scan runs before the parse: a deep body that is not JSON either is refused as deep
        await assertRefusal(
          await postGraphql(gateway.url, `{"query":${nest(200_000)}`),
          400,
          'ProxyMalformedQuery',
        );
      });
      assert.ok(
        !gateway.lines.some((l) => /handler failed|RangeError/.test(l)),
        gateway.lines.join('\n'),
      );
    });
  });

  Deno.test(`[${kind}] JSON_MAX_DEPTH=${HARD_MAX}: a body at it is forwarded, one deeper refused`, async () => {
    await withGateway(
      kind,
      { env: { JSON_MAX_DEPTH: String(HARD_MAX + 500) } },
      async ({ sandbox, gateway }) => {
        const body = deepBody('query Q($botID: BotID!) { bot(id: $botID) { id } }', HARD_MAX, {
          botID: WORLD_IDS.bot1,
        });
        const atMax = await postGraphql(gateway.url, body);
        assert.equal(atMax.status, 200, await atMax.text());
        const sent = forwarded(sandbox).at(-1)!.json as { variables: { x: unknown } };
        assert.deepEqual(sent.variables.x, nestValue(HARD_MAX - 2));
        await assertNothingReached(sandbox, async () => {
          const message = await assertRefusal(
            await postGraphql(gateway.url, deepBody(QUERY, HARD_MAX + 1)),
            400,
            'ProxyMalformedQuery',
          );
          assert.equal(message, `The body nests deeper than ${HARD_MAX} levels`);
        });
      },
    );
  });

  Deno.test(`[${kind}] JSON_MAX_DEPTH lowered: the body at 4 passes, at 5 is refused`, async () => {
    await withGateway(kind, { env: { JSON_MAX_DEPTH: '4' } }, async ({ sandbox, gateway }) => {
      const ok = await postGraphql(gateway.url, deepBody(QUERY, 4));
      assert.equal(ok.status, 200, await ok.text());
      await assertNothingReached(sandbox, async () => {
        await assertRefusal(
          await postGraphql(gateway.url, deepBody(QUERY, 5)),
          400,
          'ProxyMalformedQuery',
        );
      });
    });
  });

  Deno.test(`[${kind}] an upstream answer to rewrite nested past ${HARD_MAX} is replaced whole, never 500`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const named = (depth: number) =>
        `{"errors":[{"message":"Subgraph 'bots' failed"}],"data":{"x":${nest(depth - 2)}}}`;
      const answer = (body: string) => {
        sandbox.switches.status = { status: 200, contentType: 'application/json', body };
        return postGraphql(gateway.url, { query: QUERY });
      };
      // at the depth the gateway rebuilds: the sentence replaced, the data kept
      const atMax = await answer(named(HARD_MAX));
      const rebuilt = JSON.parse(await atMax.text());
      assert.equal(atMax.status, 200);
      assert.equal(rebuilt.errors[0].extensions.code, 'UpstreamServiceError');
      assert.deepEqual(rebuilt.data.x, nestValue(HARD_MAX - 2));
      // past it, and far past it: one entry with the replacement sentence, nothing of the answer
      for (const depth of [HARD_MAX + 1, 100_000]) {
        const past = await answer(named(depth));
        assert.equal(past.status, 200);
        assert.deepEqual(JSON.parse(await past.text()), {
          errors: [{
            message: 'The upstream service rejected the request.',
            extensions: { code: 'UpstreamServiceError' },
          }],
        });
      }
      // an answer naming no internal service is passed on as it came, however deep
      const plain = `{"data":{"x":${nest(100_000)}}}`;
      const passed = await answer(plain);
      assert.equal(passed.status, 200);
      assert.equal(await passed.text(), plain);
      assert.ok(!gateway.lines.some((l) => /handler failed|RangeError/.test(l)));
    });
  });
}
