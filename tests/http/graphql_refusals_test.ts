/**
 * Every refusal of steps 1-11 and 21 of SPEC "Order in which a GraphQL body is
 * checked" on both hosts: status, code, headers, and nothing reaching the
 * upstream; a request failing two checks gets the first one's code.
 */
import assert from 'node:assert/strict';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import {
  assertNothingReached,
  assertRefusal,
  postGraphql,
  rawRequest,
} from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { waitForGauge } from '../helpers/metrics.ts';
import { withGateway } from '../helpers/setup.ts';

const Q = { query: '{ currentUser { id } }' };

/** The four social-account publish fields (SPEC step 21) with an input each, as the schema says. */
const PUBLISH: [string, string][] = [
  ['instagramAccountPublishImage', '{ imageURL: "https://x/y.jpg" }'],
  ['instagramAccountPublishReel', '{ videoURL: "https://x/y.mp4" }'],
  ['instagramAccountPublishStory', '{ mediaType: Image, mediaURL: "https://x/y.jpg" }'],
  [
    'instagramAccountPublishCarousel',
    '{ items: [{ mediaType: Image, mediaURL: "https://x/y.jpg" }] }',
  ],
];

const publishBody = (field: string, input: string) => ({
  query: `mutation P($botID: BotID!) { ${field}(botID: $botID, input: ${input}) { id } }`,
  variables: { botID: WORLD_IDS.bot1 },
});

for (const kind of HOSTS) {
  Deno.test(`[${kind}] steps 1, 7, 8, 9, 11: content type, shape, batch, extensions, parse`, async () => {
    await withGateway(kind, { env: { GRAPHQL_MAX_BATCH: '2' } }, async ({ sandbox, gateway }) => {
      const u = gateway.url;
      await assertNothingReached(sandbox, async () => {
        const noType = await fetch(`${u}/svc/graphql`, { method: 'POST', body: JSON.stringify(Q) });
        await assertRefusal(noType, 415, 'UnsupportedMediaType');
        await assertRefusal(
          await postGraphql(u, Q, { 'content-type': 'text/plain' }),
          415,
          'UnsupportedMediaType',
        );
        await assertRefusal(await postGraphql(u, '{not json'), 400, 'ProxyMalformedQuery');
        await assertRefusal(await postGraphql(u, { query: 42 }), 400, 'ProxyMalformedQuery');
        await assertRefusal(
          await postGraphql(u, [Q, { variables: {} }]),
          400,
          'ProxyMalformedQuery',
        );
        await assertRefusal(await postGraphql(u, []), 400, 'ProxyMalformedQuery');
        await assertRefusal(await postGraphql(u, [Q, Q, Q]), 413, 'BatchTooLarge');
        await assertRefusal(
          await postGraphql(u, [Q, { ...Q, extensions: { clientLibrary: { name: 'x' } } }]),
          400,
          'ProxyExtensionsUnsupported',
        );
        await assertRefusal(
          await postGraphql(u, { ...Q, extensions: [] }),
          400,
          'ProxyExtensionsUnsupported',
        );
        await assertRefusal(
          await postGraphql(u, { query: '{ currentUser { id }' }),
          400,
          'ProxyMalformedQuery',
        );
        await assertRefusal(
          await postGraphql(u, [Q, { query: 'query {' }]),
          400,
          'ProxyMalformedQuery',
        );
        await assertRefusal(
          await postGraphql(u, { ...Q, variables: [1] }),
          400,
          'ProxyMalformedQuery',
        );
      });
    });
  });

  Deno.test(`[${kind}] first refusal wins when a request fails two checks`, async () => {
    await withGateway(kind, { env: { GRAPHQL_MAX_BATCH: '1' } }, async ({ sandbox, gateway }) => {
      await assertNothingReached(sandbox, async () => {
        // 415 (step 1) before malformed JSON (step 7)
        await assertRefusal(
          await postGraphql(gateway.url, '{x', { 'content-type': 'text/plain' }),
          415,
          'UnsupportedMediaType',
        );
        // 400 malformed (7) before batch size (8)
        await assertRefusal(
          await postGraphql(gateway.url, [Q, { query: 1 }]),
          400,
          'ProxyMalformedQuery',
        );
        // 413 batch (8) before extensions (9)
        await assertRefusal(
          await postGraphql(gateway.url, [{ ...Q, extensions: { persistedQuery: 1 } }, Q]),
          413,
          'BatchTooLarge',
        );
      });
    });
  });

  Deno.test(`[${kind}] step 3: no master token is 500 ProxyTokenMissing and health 503`, async () => {
    await withGateway(kind, { env: { SVC_TOKEN: 'has space' } }, async ({ sandbox, gateway }) => {
      await assertNothingReached(sandbox, async () => {
        await assertRefusal(await postGraphql(gateway.url, Q), 500, 'ProxyTokenMissing');
        // step 1 still comes first
        await assertRefusal(
          await postGraphql(gateway.url, Q, { 'content-type': 'text/html' }),
          415,
          'UnsupportedMediaType',
        );
      });
      const health = await fetch(`${gateway.url}/svc/healthz`);
      assert.equal(health.status, 503);
      assert.deepEqual(await health.json(), { ok: false });
      assert.equal(health.headers.get('cache-control'), 'no-store');
      assert.ok(
        gateway.lines.some((l) => l.includes('ProxyTokenMissing') && l.includes('SVC_TOKEN')),
      );
      assert.ok(!gateway.lines.join('\n').includes('has space'));
    });
  });

  Deno.test(`[${kind}] step 5: GRAPHQL_MAX_CONCURRENT counts until the upstream answers`, async () => {
    await withGateway(
      kind,
      { env: { GRAPHQL_MAX_CONCURRENT: '1', METRICS: '1' } },
      async ({ sandbox, gateway }) => {
        sandbox.switches.delays = [{ ms: 1_000, match: { rootField: 'currentUser' } }];
        const slow = postGraphql(gateway.url, Q);
        // the slot is held once the gauge says so and the call reached the upstream (which holds
        // its answer a second)
        await waitForGauge(
          gateway.url,
          'svc_graphql_in_flight',
          1,
          () => sandbox.received.length > 0,
        );
        const busy = await assertNothingReached(sandbox, () => postGraphql(gateway.url, Q));
        await assertRefusal(busy, 503, 'ProxyBusy');
        assert.equal(busy.headers.get('retry-after'), '5');
        assert.equal((await slow).status, 200);
        await (await Promise.resolve(slow)).body?.cancel();
        sandbox.switches.delays = [];
        const after = await postGraphql(gateway.url, Q);
        assert.equal(after.status, 200, 'the slot was released');
        await after.body?.cancel();
      },
    );
  });

  Deno.test(`[${kind}] step 6: over 2 MiB is 413 with connection: close`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      await assertNothingReached(sandbox, async () => {
        const big = JSON.stringify({
          query: `{ currentUser { id } } #${'x'.repeat(2 * 1024 * 1024)}`,
        });
        const res = await postGraphql(gateway.url, big);
        await assertRefusal(res, 413, 'RequestTooLarge');
        // declared length over the ceiling, body never sent: answered at once
        const host = new URL(gateway.url).host;
        const raw = await rawRequest(
          gateway.url,
          `POST /svc/graphql HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\ncontent-length: 9999999`,
          '{"query":',
        );
        assert.equal(raw.status, 413);
        assert.equal(raw.headers.connection, 'close');
        assert.equal(JSON.parse(raw.body).errors[0].extensions.code, 'RequestTooLarge');
      });
    });
  });

  Deno.test(`[${kind}] step 21: timeoutMs and an unreachable upstream give 504`, async () => {
    await withGateway(kind, { options: { timeoutMs: 300 } }, async ({ sandbox, gateway }) => {
      sandbox.switches.delays = [{ ms: 1500, match: { rootField: 'currentUser' } }];
      const message = await assertRefusal(
        await postGraphql(gateway.url, Q),
        504,
        'ProxyUpstreamUnavailable',
      );
      assert.match(message, /300 ms/);
      sandbox.switches.delays = [];
      sandbox.switches.drop = {};
      await assertRefusal(await postGraphql(gateway.url, Q), 504, 'ProxyUpstreamUnavailable');
    });
    await withGateway(
      kind,
      { env: { SVC_API_BASE: 'http://127.0.0.1:9' } },
      async ({ gateway }) => {
        await assertRefusal(await postGraphql(gateway.url, Q), 504, 'ProxyUpstreamUnavailable');
      },
    );
  });

  Deno.test(`[${kind}] slowTimeoutMs applies to the four publish fields`, async () => {
    const options = { timeoutMs: 200, slowTimeoutMs: 1_500, allowedBotIds: 'any' as const };
    await withGateway(kind, { options }, async ({ sandbox, gateway }) => {
      // the upstream answers between the two deadlines: only the slow one lets it through
      sandbox.switches.delays = [{ ms: 700 }];
      const published = await Promise.all(PUBLISH.map(async ([field, input]) => {
        const res = await postGraphql(gateway.url, publishBody(field, input));
        const body = await res.json();
        return { field, status: res.status, id: body.data?.[field]?.id, body };
      }));
      for (const p of published) {
        assert.equal(p.status, 200, `${p.field}: ${JSON.stringify(p.body)}`);
        assert.equal(typeof p.id, 'string', `${p.field}: ${JSON.stringify(p.body)}`);
      }
      // an ordinary field with the same delay meets the normal deadline
      const plain = await assertRefusal(
        await postGraphql(gateway.url, Q),
        504,
        'ProxyUpstreamUnavailable',
      );
      assert.match(plain, /\b200 ms\b/);
      // past the slow deadline a publish field gets 504 too, from the slow deadline
      sandbox.switches.delays = [{ ms: 2_000 }];
      const [field, input] = PUBLISH[0];
      const late = await postGraphql(gateway.url, publishBody(field, input));
      const message = await assertRefusal(late, 504, 'ProxyUpstreamUnavailable');
      assert.match(message, /\b1500 ms\b/);
    });
  });

  Deno.test(`[${kind}] other methods get 405 with allow and an empty body`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      await assertNothingReached(sandbox, async () => {
        for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
          const res = await fetch(`${gateway.url}/svc/graphql`, { method });
          assert.equal(res.status, 405, method);
          assert.equal(res.headers.get('allow'), 'POST');
          assert.equal(await res.text(), '');
        }
      });
    });
  });
}
