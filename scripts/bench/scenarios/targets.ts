/**
 * Scenario 'targets' (docs/benchmarks.md "The gateway's own cost"): the gateway against the fastest
 * possible upstream. A fixed-answer upstream of its own (../fixed_upstream.ts, its own process:
 * every POST answered 200 with one small fixed JSON, nothing executed), measured directly (the
 * baseline), through nginx (proxy_pass + injected header: the anchor, skipped with a printed reason
 * when nginx is not installed), through a do-nothing proxy on each runtime (the floors: ../floors/)
 * and through both hosts (default environment: gate off, request-time bot fence asked of that
 * upstream, tenant minute lifted), and `deno-serve`: the Deno host served by Deno.serve with the
 * fetch handler of `deno task serve:parallel` in one process (relay.ts DENO_SERVE: the Deno host
 * before its switch to node:http, measured in the same rounds). The document: `query BotName($botID: BotID!)
 * { bot(id: $botID) { id name } }` for bot1.
 *
 * ROUNDS interleaved rounds; in each round every target is measured at concurrency 32, then at
 * 1, so the machine's other load falls on every target alike. Ratios are taken per round
 * against that round's direct figure; the summary gives min..max over rounds of: c=32 req/s x
 * direct, c=1 added p50 and p99 (ms), c=1 p99 x direct, CPU s per 10k requests (c=32) of the
 * measured process.
 *
 * SVC_BENCH_BASELINE=<dir>: another checkout (its npm/ built; e.g. a worktree of the commit before a
 * change) whose Deno and Node hosts join the rounds as `deno baseline` and `node baseline`; then
 * each host is loaded together with its baseline in paired slices (../paired.ts): what a change
 * costs, measured in the same run.
 */
import { WORLD_IDS } from '../../sandbox/mod.ts';
import { type ChildProcess, denoRun, startChildProcess } from '../../host_process.ts';
import { startNginx } from '../nginx.ts';
import { startNullProxy } from '../floors/mod.ts';
import {
  type BenchContext,
  type Measurement,
  type Range,
  type Scenario,
  type ScenarioReport,
  type Target,
} from '../scenario.ts';
import { measureRounds, range, ratioRanges, ROUNDS } from '../rounds.ts';
import { measurePaired, PAIRED_NOTE } from '../paired.ts';
import { DENO_SERVE } from './relay.ts';

/** The bench document and variables (docs/benchmarks.md "The gateway's own cost"). */
export const TARGETS_DOCUMENT = 'query BotName($botID: BotID!) { bot(id: $botID) { id name } }';

/** The POST body every target gets. */
export function targetsBody(): string {
  return JSON.stringify({ query: TARGETS_DOCUMENT, variables: { botID: WORLD_IDS.bot1 } });
}

/** SVC_BENCH_BASELINE as a root ending in '/', or null when unset. */
function baselineRoot(): string | null {
  const dir = Deno.env.get('SVC_BENCH_BASELINE')?.trim();
  if (!dir) return null;
  return dir.endsWith('/') ? dir : `${dir}/`;
}

/** The fixed-answer upstream in its own process. */
export function startFixedUpstream(): Promise<ChildProcess> {
  return startChildProcess({
    command: denoRun('scripts/bench/fixed_upstream.ts'),
    env: { PORT: '0', HOST: '127.0.0.1' },
    ready: /^(http:\/\/\S+)$/,
  });
}

/**
 * The per-round figures of each subject against direct (rounds.ts `ratioRanges`), then the
 * direct upstream's own CPU per request.
 */
export function summarise(
  rounds: Map<string, Measurement>[],
  subjects: string[],
): Range[] {
  const rows = subjects.flatMap((subject) => ratioRanges(rounds, 'direct', subject));
  rows.push(
    range(
      'direct',
      'cpu s per 10k req (c=32)',
      rounds.map((r) => r.get('direct@32')!.cpuMsPerRequest * 10),
    ),
  );
  return rows;
}

async function run(context: BenchContext): Promise<ScenarioReport> {
  const body = targetsBody();
  const upstream = await startFixedUpstream();
  const notes = [
    `document: BotName for bot1 (${body.length} bytes); upstream: fixed answer (own process)`,
    `${ROUNDS} interleaved rounds; ratios per round against that round's direct figure`,
  ];
  const stops: Array<() => Promise<void>> = [() => upstream.stop()];
  try {
    const env = { SVC_API_BASE: upstream.url };
    const deno = await context.startGateway({ kind: 'deno', env });
    const node = await context.startGateway({ kind: 'node', env });
    const denoServe = await context.startGateway({
      kind: 'deno',
      env: { ...env, ...DENO_SERVE.env },
      denoScript: DENO_SERVE.script,
    });
    const targets: Target[] = [{
      label: 'direct',
      url: `${upstream.url}/graphql?op=BotName`,
      headers: { authorization: `Bearer ${context.token}` },
      pid: upstream.pid,
    }];
    const nginx = await startNginx(upstream.url, context.token);
    if ('skipped' in nginx) {
      notes.push(`nginx skipped: ${nginx.skipped}`);
      console.log(`targets: nginx skipped: ${nginx.skipped}`);
    } else {
      stops.push(nginx.stop);
      await context.placeServer(nginx.pid);
      targets.push({ label: 'nginx', url: `${nginx.url}/graphql?op=BotName`, pid: nginx.pid });
    }
    for (const kind of ['deno', 'node'] as const) {
      const floor = await startNullProxy(kind, upstream.url, context.token);
      stops.push(() => floor.stop());
      await context.placeServer(floor.pid);
      targets.push({
        label: `null proxy ${kind}`,
        url: `${floor.url}/graphql?op=BotName`,
        pid: floor.pid,
      });
    }
    targets.push(
      { label: 'deno', url: `${deno.url}/svc/graphql`, pid: deno.pid },
      { label: 'node', url: `${node.url}/svc/graphql`, pid: node.pid },
      { label: DENO_SERVE.label, url: `${denoServe.url}/svc/graphql`, pid: denoServe.pid },
    );
    const root = baselineRoot();
    const baselines: Target[] = [];
    for (const kind of root ? ['deno', 'node'] as const : []) {
      const gateway = await context.startGateway({ kind, env, root: root! });
      baselines.push({
        label: `${kind} baseline`,
        url: `${gateway.url}/svc/graphql`,
        pid: gateway.pid,
      });
    }
    targets.push(...baselines);
    const { rounds, measurements, comparisons } = await measureRounds(context, targets, body);
    const paired = [];
    for (const base of baselines) {
      const subject = targets.find((t) => `${t.label} baseline` === base.label)!;
      paired.push(await measurePaired(context, base, subject, body));
    }
    if (root) notes.push(`baseline: ${root} (SVC_BENCH_BASELINE); ${PAIRED_NOTE}`);
    notes.push('cpu: the measured process (fixed upstream for direct, nginx worker, gateway)');
    notes.push(
      'null proxy deno / node: the floors, do-nothing proxies (bench/floors/: Deno.serve + ' +
        'fetch; node:http + an undici Agent; body read whole, token injected, no checks)',
    );
    notes.push(
      'deno: `deno task serve` (node:http on Deno); deno-serve: the same core on Deno.serve + ' +
        'the serve:parallel fetch handler, one process (bench/gateway_runner.ts ' +
        'SVC_BENCH_DENO_SERVE=1)',
    );
    return {
      name: 'targets',
      title: 'Targets: fixed-answer upstream, direct vs nginx vs both hosts',
      notes,
      measurements: [...measurements, ...paired.flatMap((p) => p.measurements)],
      comparisons,
      ranges: [
        ...summarise(rounds, targets.slice(1).map((t) => t.label)),
        ...paired.flatMap((p) => p.ranges),
      ],
    };
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
  }
}

/** See the module comment. */
export const targetsScenario: Scenario = {
  name: 'targets',
  title: 'fixed-answer upstream: direct, nginx, Deno host, Node host; 3 interleaved rounds',
  run,
};
