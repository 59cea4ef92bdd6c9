/**
 * Scenario 'checks': the cost of the document and fence checks. The same document through two
 * Deno hosts (scripts/bench/gateway_runner.ts, each in its own process), measured in the same
 * run at concurrency 1 and 32:
 *
 * - off: allowedBotIds 'any', no registry, SVC_RESOURCE_FENCE=off;
 * - on: the registry of every app document (option `operations`), allowedBotIds = the sandbox's
 *   three bots, SVC_RESOURCE_FENCE=bound (SPEC "Document checks in detail").
 *
 * Reports on/off as ratios (requests per second, CPU per request) and added latency.
 */
import { WORLD_IDS } from '../../sandbox/mod.ts';
import { benchRequest } from '../document.ts';
import {
  type BenchContext,
  compare,
  type Comparison,
  type Measurement,
  type Scenario,
  type ScenarioReport,
  type Target,
} from '../scenario.ts';

const RUNNER = 'scripts/bench/gateway_runner.ts';

/** The two configurations compared: environment of the runner per label. */
export const CHECK_CONFIGS: Record<'checks off' | 'checks on', Record<string, string>> = {
  'checks off': { SVC_BENCH_ALLOWED_BOT_IDS: 'any', SVC_RESOURCE_FENCE: 'off' },
  'checks on': {
    SVC_BENCH_REGISTRY: 'app',
    SVC_BENCH_ALLOWED_BOT_IDS: [WORLD_IDS.bot1, WORLD_IDS.bot2, WORLD_IDS.bot3].join(','),
    SVC_RESOURCE_FENCE: 'bound',
  },
};

async function run(context: BenchContext): Promise<ScenarioReport> {
  const { operationName, body } = benchRequest();
  const targets: Target[] = [];
  const notes = [`document: ${operationName} for bot1 (${body.length} bytes), Deno host`];
  for (const [label, env] of Object.entries(CHECK_CONFIGS)) {
    const gateway = await context.startGateway({ kind: 'deno', env, denoScript: RUNNER });
    targets.push({ label, url: `${gateway.url}/svc/graphql`, pid: gateway.pid });
    const configLine = gateway.lines.find((l) => l.startsWith('svc-gateway: gate'));
    notes.push(`${label}: ${configLine ?? '(no configuration line)'}`);
  }
  const measurements: Measurement[] = [];
  const comparisons: Comparison[] = [];
  for (const connections of [1, 32]) {
    const off = await context.measure(targets[0], body, connections);
    const on = await context.measure(targets[1], body, connections);
    measurements.push(off, on);
    comparisons.push(compare('checks on / checks off', off, on));
  }
  notes.push('cpu: the gateway process of each configuration');
  return {
    name: 'checks',
    title: 'Registry and fences on vs off, same document, same run',
    notes,
    measurements,
    comparisons,
  };
}

/** See the module comment. */
export const checksScenario: Scenario = {
  name: 'checks',
  title: 'registry + bot fence list + resource fence bound, vs all off',
  run,
};
