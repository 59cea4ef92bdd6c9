/**
 * The shipped alert rules (ops/svc-gateway.rules.yml; docs/operations.md "Alerts and dashboard")
 * under Debian's promtool: they load (`promtool check rules`), and each alert fires for input
 * series that should page and stays quiet for ones that should not (`promtool test rules` over
 * alerts.test.yml, which has a case for every alert of the file); the npm package ships them
 * (`deno task build:npm` first).
 */
import assert from 'node:assert/strict';
import { ROOT } from '../../scripts/host_process.ts';
import { prometheusUnavailable, promtool, RULES_FILE } from '../fixtures/prometheus.ts';

const TESTS_FILE = `${ROOT}tests/observability/alerts.test.yml`;
const unavailable = await prometheusUnavailable();
if (unavailable) console.log(`alert rules tests skipped: ${unavailable}`);

/** The alert names of a rules or rules-test file. */
function alertNames(text: string, key: 'alert' | 'alertname'): Set<string> {
  return new Set(
    [...text.matchAll(new RegExp(`^\\s*-?\\s*${key}: (\\w+)$`, 'gm'))].map((m) => m[1]),
  );
}

Deno.test({
  name: 'alert rules: promtool check rules, and every alert tested firing and quiet',
  ignore: unavailable !== null,
  async fn() {
    const checked = await promtool('check', 'rules', RULES_FILE);
    assert.ok(checked.ok, checked.output);
    const rules = alertNames(await Deno.readTextFile(RULES_FILE), 'alert');
    assert.equal(rules.size, 11, [...rules].join(', '));
    const tests = await Deno.readTextFile(TESTS_FILE);
    assert.deepEqual([...alertNames(tests, 'alertname')].sort(), [...rules].sort());
    for (const name of rules) {
      const cases = tests.split(`alertname: ${name}\n`).slice(1).map((c) => c.split('\n')[0]);
      assert.ok(cases.some((c) => c.includes('exp_alerts: []')), `${name}: a quiet case`);
      assert.ok(cases.some((c) => c.trim() === 'exp_alerts:'), `${name}: a firing case`);
    }
    const tested = await promtool('test', 'rules', TESTS_FILE);
    assert.ok(tested.ok, tested.output);
  },
});

Deno.test('the npm package ships ops/ (the rules and the dashboard, as in the repository)', async () => {
  const pkg = JSON.parse(await Deno.readTextFile(`${ROOT}npm/package.json`));
  assert.ok(pkg.files.includes('ops'), pkg.files.join(', '));
  for (const name of ['svc-gateway.rules.yml', 'svc-gateway.dashboard.json']) {
    assert.equal(
      await Deno.readTextFile(`${ROOT}npm/ops/${name}`),
      await Deno.readTextFile(`${ROOT}ops/${name}`),
      name,
    );
  }
});
