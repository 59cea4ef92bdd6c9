/**
 * A worker deployment's scrape, merged (src/observability/aggregate.ts; docs/operations.md
 * "Metrics of a worker deployment"): counters and histograms summed, gauges summed or labelled
 * per worker, stale and exited workers' counts kept so sums never go backwards, the size bound;
 * and the Node primary's collection (hosts/node/cluster_metrics.ts) over stand-in workers: a
 * stalled worker answered around after the wait, an oversized text refused, the bound on
 * scrapes collected at once, an exited worker's counts kept.
 */
import assert from 'node:assert/strict';
import type { Worker } from 'node:cluster';
import { DEFAULTS } from '../../src/config/defaults.ts';
import { acceptableText, mergeDeployment } from '../../src/observability/aggregate.ts';
import { createMetrics, type MetricGauges } from '../../src/observability/metrics.ts';
import { createPrimaryMetrics } from '../../hosts/node/cluster_metrics.ts';
import { createIsolateMetrics } from '../../hosts/deno_parallel/parallel_metrics.ts';
import { sample } from './helpers.ts';

/** One worker's exposition as the registry writes it. */
function text(requests: number, inFlight: number, rss: number): string {
  return [
    '# HELP svc_requests_total Answers of claimed routes.',
    '# TYPE svc_requests_total counter',
    `svc_requests_total{route="graphql",status="200"} ${requests}`,
    '# HELP svc_upstream_duration_seconds Upstream calls.',
    '# TYPE svc_upstream_duration_seconds histogram',
    `svc_upstream_duration_seconds_bucket{route="graphql",le="0.005"} ${requests}`,
    `svc_upstream_duration_seconds_bucket{route="graphql",le="+Inf"} ${requests}`,
    `svc_upstream_duration_seconds_sum{route="graphql"} ${requests / 1000}`,
    `svc_upstream_duration_seconds_count{route="graphql"} ${requests}`,
    '# HELP svc_graphql_in_flight GraphQL calls in flight.',
    '# TYPE svc_graphql_in_flight gauge',
    `svc_graphql_in_flight ${inFlight}`,
    '# HELP process_resident_memory_bytes Resident memory (bytes).',
    '# TYPE process_resident_memory_bytes gauge',
    `process_resident_memory_bytes ${rss}`,
    '',
  ].join('\n');
}

const REQ = 'svc_requests_total{route="graphql",status="200"}';

Deno.test('merge: counters and histograms summed, gauges summed or per worker', () => {
  const merged = mergeDeployment(2, [
    { worker: '1', text: text(5, 2, 200), fresh: true },
    { worker: '0', text: text(7, 1, 100), fresh: true },
  ]);
  assert.equal(sample(merged, REQ), 12);
  assert.equal(sample(merged, 'svc_upstream_duration_seconds_count{route="graphql"}'), 12);
  assert.equal(
    sample(merged, 'svc_upstream_duration_seconds_bucket{route="graphql",le="+Inf"}'),
    12,
  );
  assert.equal(sample(merged, 'svc_graphql_in_flight'), 3);
  assert.equal(sample(merged, 'process_resident_memory_bytes{worker="0"}'), 100);
  assert.equal(sample(merged, 'process_resident_memory_bytes{worker="1"}'), 200);
  assert.equal(sample(merged, 'svc_workers'), 2);
  assert.equal(sample(merged, 'svc_metrics_workers_missing'), 0);
  assert.equal(merged.match(/# TYPE svc_requests_total counter/g)?.length, 1);
  assert.ok(merged.indexOf('worker="0"') < merged.indexOf('worker="1"'), 'workers in order');
});

/** One worker's registry text with its memory accountant at `held` and `growth` (bytes). */
function memoryText(budget: number, held: number, growth: number, sheds: number): string {
  const metrics = createMetrics();
  for (let i = 0; i < sheds; i++) metrics.memoryAction('shed_socket');
  metrics.memoryAction('pressure');
  const gauges: MetricGauges = {
    graphqlInFlight: 0,
    graphqlMaxConcurrent: 64,
    restInFlight: 0,
    restMaxConcurrent: 8,
    relaySockets: 0,
    relaySubscriptions: 0,
    relayPausedLegs: 0,
    relayUpstreamSockets: 0,
    relayTimers: 0,
    resourceBindings: 0,
    tenantsTracked: 0,
    memoryBudgetBytes: budget,
    memoryHeldBytes: held,
    memoryResidentGrowthBytes: growth,
    memoryLevel: held > budget ? 2 : 0,
  };
  return metrics.render(gauges);
}

Deno.test('merge: the memory gauges per worker (each its own budget), its actions summed', () => {
  const MIB = 2 ** 20;
  const merged = mergeDeployment(2, [
    { worker: '0', text: memoryText(256 * MIB, 300 * MIB, 40 * MIB, 2), fresh: true },
    { worker: '1', text: memoryText(128 * MIB, 10 * MIB, 90 * MIB, 3), fresh: true },
  ]);
  for (
    const [name, zero, one] of [
      ['svc_memory_budget_bytes', 256 * MIB, 128 * MIB],
      ['svc_memory_held_bytes', 300 * MIB, 10 * MIB],
      ['svc_memory_resident_growth_bytes', 40 * MIB, 90 * MIB],
      ['svc_memory_level', 2, 0],
    ] as const
  ) {
    assert.equal(sample(merged, `${name}{worker="0"}`), zero, name);
    assert.equal(sample(merged, `${name}{worker="1"}`), one, name);
    assert.equal(sample(merged, name), null, `${name}: no summed series`);
  }
  assert.equal(sample(merged, 'svc_memory_actions_total{action="shed_socket"}'), 5);
  assert.equal(sample(merged, 'svc_memory_actions_total{action="pressure"}'), 2);
  assert.equal(sample(merged, 'svc_graphql_max_concurrent'), 128, 'other gauges still summed');
});

Deno.test('merge: a stale worker counts with its last counters, no gauges, and is missing', () => {
  const merged = mergeDeployment(3, [
    { worker: '0', text: text(7, 1, 100), fresh: true },
    { worker: '1', text: text(5, 2, 200), fresh: false },
  ]);
  assert.equal(sample(merged, REQ), 12);
  assert.equal(sample(merged, 'svc_graphql_in_flight'), 1);
  assert.equal(sample(merged, 'process_resident_memory_bytes{worker="1"}'), null);
  assert.equal(sample(merged, 'svc_metrics_workers_missing'), 2);
});

Deno.test('a worker text over the bound is not accepted', () => {
  assert.ok(acceptableText(text(1, 0, 1)));
  assert.ok(!acceptableText('x'.repeat(DEFAULTS.metricsWorkerTextMaxBytes + 1)));
  assert.ok(!acceptableText({ text: 'x' }));
});

/** A stand-in for a cluster worker: records what the primary sends it. */
function standIn(): Worker & { sent: Record<string, unknown>[] } {
  const sent: Record<string, unknown>[] = [];
  return {
    sent,
    isConnected: () => true,
    send: (m: Record<string, unknown>) => void sent.push(m),
  } as unknown as Worker & { sent: Record<string, unknown>[] };
}

function merged(worker: { sent: Record<string, unknown>[] }, id: number): string | undefined {
  const m = worker.sent.find((s) => s.svc === 'metrics-merged' && s.id === id);
  return m?.text as string | undefined;
}

Deno.test('primary: both answer; a stalled one counts with its last text after the wait', async () => {
  const primary = createPrimaryMetrics(2);
  const [a, b] = [standIn(), standIn()];
  primary.started(a, 0);
  primary.started(b, 1);
  primary.message(a, { svc: 'metrics-ask', id: 1, text: text(3, 0, 1) });
  const give = b.sent.find((m) => m.svc === 'metrics-give')!;
  primary.message(b, { svc: 'metrics-text', id: give.id, text: text(4, 0, 1) });
  assert.equal(sample(merged(a, 1)!, REQ), 7);
  assert.equal(sample(merged(a, 1)!, 'svc_metrics_workers_missing'), 0);

  // b stalls: a's next scrape waits DEFAULTS.metricsWorkerWaitMs, then counts b's last text
  primary.message(a, { svc: 'metrics-ask', id: 2, text: text(6, 0, 1) });
  assert.equal(merged(a, 2), undefined, 'waits for b');
  await new Promise((r) => setTimeout(r, DEFAULTS.metricsWorkerWaitMs + 100));
  assert.equal(sample(merged(a, 2)!, REQ), 10, 'b counted with its last text');
  assert.equal(sample(merged(a, 2)!, 'svc_metrics_workers_missing'), 1);

  // b's oversized answer is refused: b stays at its last text
  primary.message(a, { svc: 'metrics-ask', id: 3, text: text(6, 0, 1) });
  const third = b.sent.filter((m) => m.svc === 'metrics-give').at(-1)!;
  primary.message(b, { svc: 'metrics-text', id: third.id, text: 'x'.repeat(2 << 20) });
  primary.exited(b);
  assert.equal(sample(merged(a, 3)!, REQ), 10, 'b exited: its last counts stay in the sum');

  // a replacement worker starts from zero: the sum does not go backwards
  const c = standIn();
  primary.started(c, 1);
  primary.message(a, { svc: 'metrics-ask', id: 4, text: text(6, 0, 1) });
  const fourth = c.sent.find((m) => m.svc === 'metrics-give')!;
  primary.message(c, { svc: 'metrics-text', id: fourth.id, text: text(1, 0, 1) });
  assert.equal(sample(merged(a, 4)!, REQ), 11);
  assert.equal(sample(merged(a, 4)!, 'svc_metrics_workers_missing'), 0);
});

Deno.test('primary: at most DEFAULTS.metricsScrapesPending collected at once', async () => {
  const primary = createPrimaryMetrics(2);
  const [a, b] = [standIn(), standIn()];
  primary.started(a, 0);
  primary.started(b, 1);
  const asks = DEFAULTS.metricsScrapesPending + 3;
  for (let id = 0; id < asks; id++) {
    primary.message(a, { svc: 'metrics-ask', id, text: text(2, 0, 1) });
  }
  assert.equal(b.sent.length, DEFAULTS.metricsScrapesPending, 'b asked for the bound only');
  const answeredAtOnce = a.sent.filter((m) => m.svc === 'metrics-merged');
  assert.equal(answeredAtOnce.length, 3, 'the scrapes past the bound answered at once');
  assert.equal(sample(answeredAtOnce[0].text as string, 'svc_metrics_workers_missing'), 1);
  await new Promise((r) => setTimeout(r, DEFAULTS.metricsWorkerWaitMs + 100));
  assert.equal(a.sent.filter((m) => m.svc === 'metrics-merged').length, asks);
});

Deno.test('isolates over BroadcastChannel: all answer; a stalled one is missing after the wait', async () => {
  let stall = false;
  const texts = [text(1, 0, 1), text(2, 0, 1), text(4, 0, 1)];
  const isolates = texts.map((t, i) =>
    createIsolateMetrics(
      3,
      () => i === 1 && stall ? new Promise<string>(() => {}) : Promise.resolve(t),
    )
  );
  try {
    const all = await isolates[0].deployment(texts[0]);
    assert.equal(sample(all, REQ), 7);
    assert.equal(sample(all, 'svc_metrics_workers_missing'), 0);
    const names = [...all.matchAll(/^process_resident_memory_bytes\{worker="(\w+)"\}/gm)];
    assert.equal(names.length, 3);
    stall = true;
    const partial = await isolates[2].deployment(texts[2]);
    assert.equal(sample(partial, 'svc_metrics_workers_missing'), 1, partial);
    assert.equal(sample(partial, REQ), 7, 'the stalled isolate counted with its last text');
  } finally {
    for (const isolate of isolates) isolate.close();
  }
});
