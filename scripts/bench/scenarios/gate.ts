/**
 * Scenario 'gate': the session gate's cached path (SPEC "Authentication" 2: the bot set cached
 * 30 s per token hash) against the gate off (goal: at least 0.9x; docs/benchmarks.md "The checks,
 * the session gate and metrics (paired slices)"), the same document through two Deno hosts
 * (scripts/bench/gateway_runner.ts, each in its own process) in front of the fixed-answer upstream
 * (as in 'targets'), in interleaved rounds at concurrency 32 and 1 (rounds.ts):
 *
 * - gate off: allowedBotIds = the sandbox's three bots (a frozen fence, no upstream question),
 *   resource fence bound, operation allowlist on;
 * - gate on: a real backend (embedded PostgreSQL behind the PostgREST-compatible test endpoint,
 *   tests/fixtures/db, in the bench process), one signed-in owner of the three bots, resource
 *   fence bound, allowlist on (its default), no service-role key (no shared store), every
 *   request with the same bearer: after the probe, the gate answers from its cache.
 *
 * Both get the same request, bearer included (the gate-off host drops it unread); a third target
 * sends the gate-off host the request without the bearer, so the whole gap shows as well.
 *
 * Both gateways thus run the same fences; the gate-on one also reads the token, hashes it,
 * looks it up, and runs the account checks (steps 14 and 15). Then gate off and gate on, both
 * with the bearer, loaded together in paired slices (paired.ts), the steadier figure. The backend calls made during the
 * run are counted and reported (expected: the probe's one, plus one per 30 s of run).
 *
 * Then (docs/operations.md "Limits across processes") gate on with per-process tenant limits
 * against gate on with the shared budget (src/shared_limits/), paired likewise, with the shared
 * limits' backend calls per 10k requests.
 */
import { WORLD_IDS } from '../../sandbox/mod.ts';
import { type Backend, startBackend } from '../../../tests/fixtures/db/backend.ts';
import { startPostgres } from '../../../tests/fixtures/db/postgres.ts';
import { benchRequest } from '../document.ts';
import type {
  BenchContext,
  Measurement,
  Range,
  Scenario,
  ScenarioReport,
  Target,
} from '../scenario.ts';
import { measureRounds, ratioRanges, ROUNDS } from '../rounds.ts';
import { measurePaired, PAIRED_NOTE } from '../paired.ts';
import { startFixedUpstream } from './targets.ts';

const RUNNER = 'scripts/bench/gateway_runner.ts';
const BOTS = [WORLD_IDS.bot1, WORLD_IDS.bot2, WORLD_IDS.bot3];

/** Environment shared by both gateways: the same fences and allowlist. */
const SAME_CHECKS = { SVC_RESOURCE_FENCE: 'bound', SVC_OPERATION_ALLOWLIST: 'on' };

async function run(context: BenchContext): Promise<ScenarioReport> {
  const { operationName, body } = benchRequest();
  const upstream = await startFixedUpstream();
  const cluster = await startPostgres();
  try {
    const backend = await startBackend(cluster);
    try {
      const owner = await backend.seed.createUser('bench@example.test');
      const workspace = await backend.seed.createWorkspace('Bench', owner);
      for (const [i, bot] of BOTS.entries()) {
        await backend.seed.createBot(workspace, `Bot ${i + 1}`, bot);
      }
      const jwt = await backend.rest.mintUserToken(owner, { expSeconds: 3600 });
      const off = await context.startGateway({
        kind: 'deno',
        denoScript: RUNNER,
        env: {
          ...SAME_CHECKS,
          SVC_API_BASE: upstream.url,
          SVC_BENCH_ALLOWED_BOT_IDS: BOTS.join(','),
        },
      });
      const on = await context.startGateway({
        kind: 'deno',
        denoScript: RUNNER,
        env: {
          ...SAME_CHECKS,
          SVC_API_BASE: upstream.url,
          CLIENT_BACKEND_URL: backend.rest.url,
          CLIENT_BACKEND_ANON_KEY: backend.rest.anonKey,
        },
      });
      const bearer = { authorization: `Bearer ${jwt}` };
      // The same request bytes to both configurations (the gate-off host drops the caller's
      // authorization like every other header it does not forward), so the figure is the
      // gate's own cost; the gate off without the header is measured too, for the whole gap.
      const targets: Target[] = [
        { label: 'gate off', url: `${off.url}/svc/graphql`, headers: bearer, pid: off.pid },
        { label: 'gate on (cached)', url: `${on.url}/svc/graphql`, headers: bearer, pid: on.pid },
        { label: 'gate off, no bearer', url: `${off.url}/svc/graphql`, pid: off.pid },
      ];
      const { rounds, measurements, comparisons } = await measureRounds(context, targets, body);
      const paired = await measurePaired(context, targets[0], targets[1], body);
      const shared = await measureSharedBudget(context, backend, upstream.url, bearer, body);
      const calls = backend.rest.calls.get('svc_my_bot_ids') ?? 0;
      const answered = measurements.filter((m) => m.target.startsWith(`${targets[1].label} r`))
        .reduce((sum, m) => sum + m.requests, 0);
      return {
        name: 'gate',
        title: 'The session gate on (cache hits) vs off, same document, same fences, same run',
        notes: [
          `document: ${operationName} for bot1 (${body.length} bytes), Deno host; upstream: ` +
          `fixed answer; ${ROUNDS} interleaved rounds, ratios per round against gate off`,
          'both: resource fence bound, allowlist on; off: allowedBotIds = 3 bots; ' +
          'on: svc_my_bot_ids of a signed-in owner of the 3 bots, no shared store',
          "'gate off' gets the same bearer header as 'gate on' (dropped there): the gate's own " +
          "cost; 'gate off, no bearer' is the same host without it (the header's bytes included)",
          `backend: embedded PostgreSQL + PostgREST-compatible endpoint; svc_my_bot_ids calls ` +
          `during the run: ${calls} for ${answered} gate-on answers (probes and warm-up excluded ` +
          'from the answers)',
          'cpu: the gateway process of each configuration',
          PAIRED_NOTE,
          ...shared.notes,
        ],
        measurements: [...measurements, ...paired.measurements, ...shared.measurements],
        comparisons,
        ranges: [
          ...ratioRanges(rounds, 'gate off', 'gate on (cached)'),
          ...ratioRanges(rounds, 'gate off, no bearer', 'gate on (cached)'),
          ...paired.ranges,
          ...shared.ranges,
        ],
      };
    } finally {
      await backend.stop();
    }
  } finally {
    await cluster.stop();
    await upstream.stop();
  }
}

/**
 * Requests a minute of the tenant in the shared-budget pair: above what the bench sends (so no
 * 429), low enough that leases (a 30th: 40,000 tokens) are taken during the run.
 */
const SHARED_RATE = 1_200_000;

/** The backend functions the shared limits call. */
const SHARED_FUNCTIONS = ['svc_tenant_take', 'svc_socket_open', 'svc_limits_sync'];

/**
 * Shared limits (docs/operations.md "Limits across processes"): gate on with per-process tenant
 * limits against gate on with the shared budget (service-role key; the resource store off on both
 * so that only the budget differs), both at SHARED_RATE, in paired slices; counts the shared
 * limits' backend calls per 10k requests.
 */
async function measureSharedBudget(
  context: BenchContext,
  backend: Backend,
  upstreamUrl: string,
  bearer: Record<string, string>,
  body: string,
): Promise<{ notes: string[]; measurements: Measurement[]; ranges: Range[] }> {
  const env = {
    ...SAME_CHECKS,
    SVC_API_BASE: upstreamUrl,
    CLIENT_BACKEND_URL: backend.rest.url,
    CLIENT_BACKEND_ANON_KEY: backend.rest.anonKey,
    TENANT_REQUESTS_PER_MINUTE: String(SHARED_RATE),
  };
  const local = await context.startGateway({ kind: 'deno', denoScript: RUNNER, env });
  const shared = await context.startGateway({
    kind: 'deno',
    denoScript: RUNNER,
    env: {
      ...env,
      BACKEND_SERVICE_ROLE_KEY: backend.rest.serviceRoleKey,
      SVC_RESOURCE_STORE: 'off',
    },
  });
  const base: Target = {
    label: 'gate on, per-process limits',
    url: `${local.url}/svc/graphql`,
    headers: bearer,
    pid: local.pid,
  };
  const subject: Target = {
    label: 'gate on, shared budget',
    url: `${shared.url}/svc/graphql`,
    headers: bearer,
    pid: shared.pid,
  };
  const count = () => SHARED_FUNCTIONS.map((fn) => backend.rest.calls.get(fn) ?? 0);
  const before = count();
  const started = performance.now();
  const paired = await measurePaired(context, base, subject, body);
  const seconds = (performance.now() - started) / 1000;
  const calls = count().map((n, i) => n - before[i]);
  const answered = paired.measurements.filter((m) => m.target.startsWith(subject.label))
    .reduce((sum, m) => sum + m.requests, 0);
  const per10k = (n: number) => ((n * 10_000) / Math.max(1, answered)).toFixed(2);
  return {
    notes: [
      `shared budget pair: both gate on at ${SHARED_RATE} requests a minute (lease ` +
      `${Math.round(SHARED_RATE / 30)}), resource store off; shared: service-role key`,
      `shared budget backend calls over the pair's ${seconds.toFixed(0)} s (probe and ` +
      `warm-up included, ${answered} measured answers): ` +
      SHARED_FUNCTIONS.map((fn, i) => `${fn} ${calls[i]} (${per10k(calls[i])} per 10k requests)`)
        .join(', ') +
      '; the sync is one call a second whatever the load; lease calls are 10,000 / lease per ' +
      '10k requests (500 at the spec rate of 600 a minute, i.e. 30 a minute at full rate)',
    ],
    measurements: paired.measurements,
    ranges: paired.ranges,
  };
}

/** See the module comment. */
export const gateScenario: Scenario = {
  name: 'gate',
  title: 'gate on with a cached session vs gate off, same fences',
  run,
};
