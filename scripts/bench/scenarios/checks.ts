/**
 * Scenario 'checks': the cost of the document and fence checks (docs/benchmarks.md "The checks, the
 * session gate and metrics (paired slices)": with every check on, at least 0.9x the checks-off
 * figure). The same app document through two Deno hosts (scripts/bench/gateway_runner.ts, each in
 * its own process) in front of the fixed-answer upstream (as in 'targets', so the checks' own cost
 * shows), in interleaved rounds at concurrency 32 and 1 (rounds.ts):
 *
 * - off: allowedBotIds 'any', no registry, allowlist off, SVC_RESOURCE_FENCE=off;
 * - on: the registry of every app document (option `operations`), the operation allowlist,
 *   allowedBotIds = the sandbox's three bots, SVC_RESOURCE_FENCE=bound (SPEC "Document checks
 *   in detail").
 *
 * Reports on/off per round as ratios (requests per second, CPU per request) and added latency;
 * then the same pair loaded together in paired slices (paired.ts), the steadier figure.
 */
import { WORLD_IDS } from '../../sandbox/mod.ts';
import { benchRequest } from '../document.ts';
import { type BenchContext, type Scenario, type ScenarioReport, type Target } from '../scenario.ts';
import { measureRounds, ratioRanges, ROUNDS } from '../rounds.ts';
import { measurePaired, PAIRED_NOTE } from '../paired.ts';
import { startFixedUpstream } from './targets.ts';

const RUNNER = 'scripts/bench/gateway_runner.ts';

/** The two configurations compared: environment of the runner per label. */
export const CHECK_CONFIGS: Record<'checks off' | 'checks on', Record<string, string>> = {
  'checks off': {
    SVC_BENCH_ALLOWED_BOT_IDS: 'any',
    SVC_RESOURCE_FENCE: 'off',
    SVC_OPERATION_ALLOWLIST: 'off',
  },
  'checks on': {
    SVC_BENCH_REGISTRY: 'app',
    SVC_OPERATION_ALLOWLIST: 'on',
    SVC_BENCH_ALLOWED_BOT_IDS: [WORLD_IDS.bot1, WORLD_IDS.bot2, WORLD_IDS.bot3].join(','),
    SVC_RESOURCE_FENCE: 'bound',
  },
};

async function run(context: BenchContext): Promise<ScenarioReport> {
  const { operationName, body } = benchRequest();
  const upstream = await startFixedUpstream();
  try {
    const targets: Target[] = [];
    const notes = [
      `document: ${operationName} for bot1 (${body.length} bytes), Deno host; upstream: fixed answer`,
      `${ROUNDS} interleaved rounds; ratios per round against that round's checks-off figure`,
    ];
    for (const [label, env] of Object.entries(CHECK_CONFIGS)) {
      const gateway = await context.startGateway({
        kind: 'deno',
        env: { ...env, SVC_API_BASE: upstream.url },
        denoScript: RUNNER,
      });
      targets.push({ label, url: `${gateway.url}/svc/graphql`, pid: gateway.pid });
      const configLine = gateway.lines.find((l) => l.startsWith('svc-gateway: gate'));
      notes.push(`${label}: ${configLine ?? '(no configuration line)'}`);
    }
    const { rounds, measurements, comparisons } = await measureRounds(context, targets, body);
    const paired = await measurePaired(context, targets[0], targets[1], body);
    notes.push('cpu: the gateway process of each configuration');
    notes.push(PAIRED_NOTE);
    return {
      name: 'checks',
      title: 'Registry, allowlist and fences on vs off, same document, same run',
      notes,
      measurements: [...measurements, ...paired.measurements],
      comparisons,
      ranges: [...ratioRanges(rounds, 'checks off', 'checks on'), ...paired.ranges],
    };
  } finally {
    await upstream.stop();
  }
}

/** See the module comment. */
export const checksScenario: Scenario = {
  name: 'checks',
  title: 'registry + allowlist + bot fence list + resource fence bound, vs all off',
  run,
};
