/**
 * /svc/metrics (docs/operations.md "Metrics") on both hosts: off by default, the access rule
 * (loopback with METRICS=1, the bearer token from everyone with METRICS_TOKEN), and the numbers
 * after a known sequence of requests. The metrics never carry the master token or a bot id.
 */
import assert from 'node:assert/strict';
import { assertNothingReached, assertRefusal, postGraphql } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';
import { SANDBOX_TOKEN, WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { DEFAULTS } from '../../src/config/defaults.ts';
import { isLoopbackAddress, metricsAllowed } from '../../src/observability/metrics_route.ts';
import { resolveConfig } from '../../src/config/resolve.ts';
import { sample } from './helpers.ts';

const BOT_QUERY =
  'query DealsIndicator($botID: BotID!) { bot(id: $botID) { id dealsPageIndicatorActive } }';

Deno.test('metrics access: loopback addresses, and the token waived for nobody', () => {
  for (const a of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) {
    assert.ok(isLoopbackAddress(a), a);
  }
  for (const a of ['10.0.0.1', '::ffff:10.0.0.1', '192.168.1.127', '', undefined]) {
    assert.ok(!isLoopbackAddress(a), String(a));
  }
  const open = resolveConfig({}, { METRICS: '1' });
  const req = (auth?: string) =>
    new Request('http://x/svc/metrics', { headers: auth ? { authorization: auth } : {} });
  assert.ok(metricsAllowed(open, req(), '127.0.0.1'));
  assert.ok(!metricsAllowed(open, req(), '203.0.113.9'), 'METRICS=1 serves loopback only');
  const tokened = resolveConfig({}, { METRICS_TOKEN: 'm-secret-1' });
  assert.ok(!metricsAllowed(tokened, req(), '127.0.0.1'), 'a token is asked of loopback too');
  assert.ok(metricsAllowed(tokened, req('Bearer m-secret-1'), '203.0.113.9'));
  assert.ok(!metricsAllowed(tokened, req('Bearer m-secret-2'), '127.0.0.1'));
  assert.ok(!resolveConfig({}, {}).metrics.enabled, 'off by default');
});

for (const kind of HOSTS) {
  Deno.test(`[${kind}] /svc/metrics is not served unless enabled`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      await assertNothingReached(sandbox, async () => {
        const res = await fetch(`${gateway.url}/svc/metrics`);
        await res.body?.cancel();
        assert.equal(res.status, 404);
      });
    });
  });

  Deno.test(`[${kind}] /svc/metrics counts a known sequence`, async () => {
    await withGateway(kind, { env: { METRICS: '1' } }, async ({ gateway }) => {
      const ok = { query: BOT_QUERY, variables: { botID: WORLD_IDS.bot1 } };
      for (let i = 0; i < 2; i++) {
        const res = await postGraphql(gateway.url, ok);
        await res.body?.cancel();
        assert.equal(res.status, 200);
      }
      await assertRefusal(
        await fetch(`${gateway.url}/svc/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain' },
          body: JSON.stringify(ok),
        }),
        415,
        'UnsupportedMediaType',
      );
      await assertRefusal(
        await postGraphql(gateway.url, {
          query: BOT_QUERY,
          variables: { botID: 'b000000000000000000000ff' },
        }),
        403,
        'BotNotAllowed',
      );
      const post = await fetch(`${gateway.url}/svc/metrics`, { method: 'POST' });
      await post.body?.cancel();
      assert.equal(post.status, 405);

      const res = await fetch(`${gateway.url}/svc/metrics`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      const text = await res.text();
      assert.equal(sample(text, 'svc_requests_total{route="graphql",status="200"}'), 2);
      assert.equal(sample(text, 'svc_requests_total{route="graphql",status="415"}'), 1);
      assert.equal(sample(text, 'svc_requests_total{route="graphql",status="403"}'), 1);
      assert.equal(sample(text, 'svc_requests_total{route="metrics",status="405"}'), 1);
      assert.equal(sample(text, 'svc_refusals_total{code="UnsupportedMediaType",step="1"}'), 1);
      assert.equal(sample(text, `svc_refusals_total{code="BotNotAllowed",step="19"}`), 1, text);
      assert.equal(sample(text, 'svc_upstream_duration_seconds_count{route="graphql"}'), 2);
      assert.equal(
        sample(text, 'svc_upstream_duration_seconds_bucket{route="graphql",le="+Inf"}'),
        2,
      );
      assert.equal(sample(text, 'svc_graphql_in_flight'), 0);
      assert.equal(sample(text, 'svc_graphql_max_concurrent'), DEFAULTS.graphqlMaxConcurrent);
      assert.equal(sample(text, 'svc_relay_max_sockets'), DEFAULTS.wsMaxSockets);
      assert.ok((sample(text, 'process_resident_memory_bytes') ?? 0) > 0, 'resident memory');
      assert.ok((sample(text, 'process_heap_used_bytes') ?? 0) > 0, 'heap in use');
      assert.ok((sample(text, 'process_start_time_seconds') ?? 0) > 1.7e9, 'start time');
      assert.ok((sample(text, 'svc_event_loop_lag_seconds') ?? -1) >= 0, 'event loop lag');
      assert.ok((sample(text, 'svc_memory_budget_bytes') ?? 0) > 0, 'the memory budget');
      assert.equal(sample(text, 'svc_workers'), null, 'one process: no deployment series');
      assert.ok(!text.includes(SANDBOX_TOKEN), 'no token in the metrics');
      assert.ok(!text.includes(WORLD_IDS.bot1), 'no bot id in the metrics');
    });
  });

  Deno.test(`[${kind}] /svc/metrics with METRICS_TOKEN asks every caller for it`, async () => {
    await withGateway(kind, { env: { METRICS_TOKEN: 'metrics-secret-1' } }, async ({ gateway }) => {
      const url = `${gateway.url}/svc/metrics`;
      await assertRefusal(await fetch(url), 403, 'MetricsNotAllowed');
      await assertRefusal(
        await fetch(url, { headers: { authorization: 'Bearer metrics-secret-2' } }),
        403,
        'MetricsNotAllowed',
      );
      const res = await fetch(url, { headers: { authorization: 'Bearer metrics-secret-1' } });
      const text = await res.text();
      assert.equal(res.status, 200);
      assert.ok(!text.includes('metrics-secret-1'));
      assert.match(text, /# TYPE svc_requests_total counter/);
    });
  });
}
