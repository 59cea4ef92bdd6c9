/**
 * A real Prometheus (Debian's; tests/fixtures/prometheus.ts) scraping `svc-gateway --workers 2`
 * (the built npm package's bin; `deno task build:npm` first) with the shipped rules loaded
 * (docs/operations.md "Metrics of a worker deployment", "Alerts and dashboard"): every scrape
 * answers for both workers, the summed request counter read back through Prometheus's HTTP API
 * equals the requests sent, each worker's process and memory budget series are there under
 * `worker`, and every PromQL expression of the rules and the dashboard evaluates without error.
 */
import assert from 'node:assert/strict';
import { startSandbox, WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { startHostProcess } from '../../scripts/host_process.ts';
import { sandboxEnv } from '../helpers/setup.ts';
import { eventually } from '../shared_limits/helpers.ts';
import {
  DASHBOARD_FILE,
  prometheusUnavailable,
  RULES_FILE,
  startPrometheus,
} from '../fixtures/prometheus.ts';
import { freshFetch, postsSpread, sample } from './helpers.ts';

const OK = {
  query: 'query DealsIndicator($botID: BotID!) { bot(id: $botID) { id dealsPageIndicatorActive } }',
  variables: { botID: WORLD_IDS.bot1 },
};
const SENT = 30;

const unavailable = await prometheusUnavailable();
if (unavailable) console.log(`Prometheus test skipped: ${unavailable}`);

/** Every PromQL expression of the rules file and the dashboard (its variables given values). */
async function shippedExpressions(): Promise<string[]> {
  const rules = [...(await Deno.readTextFile(RULES_FILE)).matchAll(/^\s+expr: (.+)$/gm)]
    .map((m) => m[1]);
  const dashboard = JSON.parse(await Deno.readTextFile(DASHBOARD_FILE)) as {
    panels: { targets: { expr: string }[] }[];
  };
  const panels = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr))
    .map((e) => e.replaceAll('$instance', '.*').replaceAll('$__rate_interval', '1m'));
  return [...rules, ...panels];
}

Deno.test({
  name: 'Prometheus over svc-gateway --workers 2: the summed counter equals what was sent',
  ignore: unavailable !== null,
  async fn() {
    const sandbox = await startSandbox();
    const host = await startHostProcess('node', {
      env: {
        ...sandboxEnv(sandbox) as Record<string, string>,
        METRICS: '1',
        HOST: '127.0.0.1',
        PORT: '0',
        WORKERS: '2',
      },
    });
    const prometheus = await startPrometheus([new URL(host.url).host]);
    try {
      const statuses = await postsSpread(host.url, OK, SENT);
      assert.deepEqual(new Set(statuses), new Set([200]));
      // each scrape lands on one worker (a connection of its own): every one answers for both
      for (let i = 0; i < 6; i++) {
        const text = await (await freshFetch(`${host.url}/svc/metrics`)).text();
        assert.equal(sample(text, 'svc_requests_total{route="graphql",status="200"}'), SENT, text);
        assert.equal(sample(text, 'svc_workers'), 2);
        assert.equal(sample(text, 'svc_metrics_workers_missing'), 0);
        for (const worker of ['0', '1']) {
          assert.ok(
            (sample(text, `process_resident_memory_bytes{worker="${worker}"}`) ?? 0) > 0,
            `worker ${worker}'s resident memory`,
          );
          assert.ok(
            (sample(text, `svc_memory_budget_bytes{worker="${worker}"}`) ?? 0) > 0,
            `worker ${worker}'s memory budget (its own, not summed)`,
          );
        }
      }
      const value = async (expr: string) => {
        const answer = await prometheus.query(expr);
        assert.equal(answer.status, 'success', `${expr}: ${answer.error}`);
        return answer.data!.result.map((s) => Number(s.value[1]));
      };
      const summed = 'sum(svc_requests_total{route="graphql",status="200"})';
      const read = await eventually(async () => (await value(summed))[0] === SENT, 20_000);
      assert.ok(read, `Prometheus read ${await value(summed)}, sent ${SENT}`);
      assert.deepEqual(await value('count(process_resident_memory_bytes)'), [2]);
      assert.deepEqual(await value('max(svc_metrics_workers_missing)'), [0]);
      assert.deepEqual(await value('sum(up)'), [1]);

      const expressions = await shippedExpressions();
      assert.ok(expressions.length >= 30, `${expressions.length} expressions`);
      for (const expr of expressions) await value(expr);
      const rules = await (await fetch(`${prometheus.url}/api/v1/rules`)).json();
      const loaded = rules.data.groups.flatMap((g: { rules: { health: string }[] }) => g.rules);
      assert.equal(loaded.length, 11);
      await eventually(async () => {
        const again = await (await fetch(`${prometheus.url}/api/v1/rules`)).json();
        return again.data.groups[0].rules.every((r: { health: string }) => r.health === 'ok');
      }, 5_000);
      const health = (await (await fetch(`${prometheus.url}/api/v1/rules`)).json()).data.groups[0]
        .rules.map((r: { name: string; health: string; lastError?: string }) =>
          `${r.name} ${r.health} ${r.lastError ?? ''}`.trim()
        );
      assert.ok(health.every((h: string) => h.endsWith(' ok')), health.join('\n'));
    } finally {
      await prometheus.stop();
      await host.stop();
      await sandbox.close();
    }
  },
});
