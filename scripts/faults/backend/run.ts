/**
 * What every backend fault does around its own part (scripts/faults/fault.ts `Fault.run`):
 * starts a world (world.ts) and the gateway host as a process, warms it (every tenant the run
 * will use admitted once, so tenant counts have their baseline), reads the counts, starts the
 * memory sampler and the ordinary traffic, runs the fault's `drive`, stops the traffic, heals
 * the backend, waits for the process to settle, reads the counts again and compares them with
 * the baseline, and stops everything it started.
 */
import type { FaultCounts, FaultHost, FaultReport, FaultRunOptions } from '../fault.ts';
import { type FaultGateway, startFaultGateway } from './gateway.ts';
import { BOT_QUERY, count, graphql, startOrdinaryTraffic, type Tally } from './traffic.ts';
import { type BackendWorld, startBackendWorld } from './world.ts';
import { WORLD_IDS } from '../../sandbox/mod.ts';

/** Resident memory may end this much above where it started (bytes) before it is a problem. */
export const RSS_GROWTH_BOUND = 48 * 1024 * 1024;
/**
 * Resident memory may peak this much above where it started (bytes) during the fault before it
 * is a problem: room above what a fault's traffic grows either host by (docs/benchmarks.md
 * "Resident memory in the fault suite").
 */
export const RSS_PEAK_BOUND = 64 * 1024 * 1024;
/** Open fds may end this many above the baseline (keep-alive connections still closing). */
const FD_SLACK = 2;
/** How long the process gets to settle after the fault (ms). */
const SETTLE_MS = 8_000;

/** What a fault's `drive` gets. */
export interface DriveContext {
  host: FaultHost;
  world: BackendWorld;
  gateway: FaultGateway;
  /** The answers so far (the fault's own callers add theirs). */
  answers: Tally;
  /** Add a problem (an unexpected answer, a count, a row). */
  problem(text: string): void;
  options: FaultRunOptions;
  /** Gives the ordinary traffic a fresh, cached session (call while the backend is healthy). */
  refreshOthers(): Promise<void>;
}

/** A backend fault's own part. */
export interface BackendFaultSpec {
  name: string;
  /** Extra gateway environment. */
  env?: Record<string, string>;
  /** Labels the fault's callers may get; any other label is a problem. 'others ok' is implied. */
  expected: readonly string[];
  /** Labels that must each have been seen at least once. */
  required: readonly string[];
  /** Drives the fault; the backend is healed (proxy cleared, reachable, PostgreSQL up) after. */
  drive(context: DriveContext): Promise<void>;
}

/** What the ordinary traffic must get, each at least once. */
const ORDINARY = ['others ok', 'others subscription ok', 'others upload ok'];

/** Counts that must return exactly to the baseline. */
const EXACT: (keyof FaultCounts)[] = [
  'graphqlInFlight',
  'restInFlight',
  'relaySockets',
  'relaySubscriptions',
  'relayUpstreamSockets',
  'relayTimers',
  'tenantsTracked',
  'upstreamConnections',
];

/** Runs `spec` on `host` (see the module comment). */
export async function runBackendFault(
  spec: BackendFaultSpec,
  host: FaultHost,
  options: FaultRunOptions,
): Promise<FaultReport> {
  const world = await startBackendWorld();
  let gateway: FaultGateway | null = null;
  try {
    gateway = await startFaultGateway(host, world.env(spec.env));
    return await measure(spec, host, options, world, gateway);
  } finally {
    await gateway?.stop();
    await world.stop();
  }
}

async function measure(
  spec: BackendFaultSpec,
  host: FaultHost,
  options: FaultRunOptions,
  world: BackendWorld,
  gateway: FaultGateway,
): Promise<FaultReport> {
  const problems: string[] = [];
  const answers: Tally = {};
  await warm(world, gateway, problems);
  const stdoutBefore = gateway.process.lines.length;
  const stderrBefore = gateway.process.errors.length;
  const before = await quiet(world, gateway);
  const memory = gateway.sampleMemory();
  const othersJwt = await world.token(world.users.a);
  const admitted = await graphql(gateway.url, othersJwt, BOT_QUERY, { botID: WORLD_IDS.bot1 });
  if (admitted !== 'ok') problems.push(`the ordinary caller's first request answered ${admitted}`);
  const traffic = startOrdinaryTraffic(gateway.url, othersJwt, answers);
  try {
    await spec.drive({
      host,
      world,
      gateway,
      answers,
      problem: (text) => void problems.push(text),
      options,
      async refreshOthers() {
        const jwt = await world.token(world.users.a);
        await graphql(gateway.url, jwt, BOT_QUERY, { botID: WORLD_IDS.bot1 });
        traffic.jwt = jwt;
      },
    });
  } catch (error) {
    problems.push(`the fault stopped: ${(error as Error).message}`);
  } finally {
    await traffic.stop();
    await heal(world);
  }
  const after = await settle(world, gateway, before);
  problems.push(...outputProblems(world, gateway, stdoutBefore, stderrBefore));
  const mem = await memory.stop();
  problems.push(...compare(before, after), ...unexpected(spec, answers));
  if (mem.after - mem.before > RSS_GROWTH_BOUND) {
    problems.push(`resident memory grew ${mb(mem.after - mem.before)} MiB`);
  }
  if (mem.peak - mem.before > RSS_PEAK_BOUND) {
    problems.push(`resident memory peaked ${mb(mem.peak - mem.before)} MiB above the start`);
  }
  return { fault: spec.name, host, answers, before, after, memory: mem, problems };
}

/** Admits each account once (A: bots 1-2, B: bot 3, C: no bot), so their tenants exist. */
async function warm(world: BackendWorld, gateway: FaultGateway, problems: string[]) {
  const { a, b, c } = world.users;
  const warmups: [string, string][] = [[a, WORLD_IDS.bot1], [b, WORLD_IDS.bot3], [c, '']];
  for (const [user, bot] of warmups) {
    const jwt = await world.token(user);
    const label = bot
      ? await graphql(gateway.url, jwt, BOT_QUERY, { botID: bot })
      : await graphql(gateway.url, jwt, '{ currentUser { id } }', {});
    if (label !== 'ok') problems.push(`warm-up of a healthy backend answered ${label}`);
  }
}

async function heal(world: BackendWorld): Promise<void> {
  world.proxy.clear();
  await world.proxy.setUnreachable(false);
  await world.cluster.up();
}

async function countsOf(world: BackendWorld, gateway: FaultGateway): Promise<FaultCounts> {
  return { ...await gateway.counts(), upstreamConnections: world.proxy.openConnections() };
}

/** The counts once the warm-up's keep-alive connections to the backend closed (at most 3 s). */
async function quiet(world: BackendWorld, gateway: FaultGateway): Promise<FaultCounts> {
  const until = Date.now() + 3_000;
  while (world.proxy.openConnections() > 0 && Date.now() < until) await sleep(100);
  return await countsOf(world, gateway);
}

/** stderr lines any run may show: Node's warning for a dependency of supabase-js. */
const HARMLESS_STDERR = /DEP0040|punycode|--trace-deprecation/;

/**
 * What the gateway printed during the fault: a backend fault is ordinary traffic, so nothing
 * may reach its stderr (harmless warnings aside), and no line may carry the master token or the
 * service-role key (SPEC: the master token never appears in a log line).
 */
function outputProblems(
  world: BackendWorld,
  gateway: FaultGateway,
  stdoutFrom: number,
  stderrFrom: number,
): string[] {
  const problems: string[] = [];
  const errors = gateway.process.errors.slice(stderrFrom).filter((l) => !HARMLESS_STDERR.test(l));
  if (errors.length > 0) {
    problems.push(`the gateway wrote ${errors.length} stderr lines: ${errors[0].slice(0, 200)}`);
  }
  const env = world.env();
  const secrets = [env.SVC_TOKEN, env.BACKEND_SERVICE_ROLE_KEY, env.ADMIN_PASSWORD];
  const lines = [
    ...gateway.process.lines.slice(stdoutFrom),
    ...gateway.process.errors.slice(stderrFrom),
  ];
  if (lines.some((line) => secrets.some((secret) => line.includes(secret)))) {
    problems.push('a secret (master token, service-role key or admin password) was printed');
  }
  return problems;
}

/** Polls the counts until they are back at `before` or SETTLE_MS passed; the last read. */
async function settle(
  world: BackendWorld,
  gateway: FaultGateway,
  before: FaultCounts,
): Promise<FaultCounts> {
  const until = Date.now() + SETTLE_MS;
  while (true) {
    const now = await countsOf(world, gateway);
    if (compare(before, now).length === 0 || Date.now() > until) return now;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The counts not back at their baseline. */
export function compare(before: FaultCounts, after: FaultCounts): string[] {
  const problems: string[] = [];
  for (const field of EXACT) {
    if (before[field] !== undefined && after[field] !== before[field]) {
      problems.push(`${field} ${before[field]} before, ${after[field]} after`);
    }
  }
  if (before.fds !== undefined && (after.fds ?? 0) > before.fds + FD_SLACK) {
    problems.push(`fds ${before.fds} before, ${after.fds} after`);
  }
  return problems;
}

function unexpected(spec: BackendFaultSpec, answers: Tally): string[] {
  const allowed = new Set([...ORDINARY, ...spec.expected]);
  const problems = Object.entries(answers)
    .filter(([label]) => !allowed.has(label))
    .map(([label, n]) => `unexpected answer '${label}' x${n}`);
  for (const label of spec.required) {
    if (!answers[label]) problems.push(`never answered '${label}'`);
  }
  for (const label of ORDINARY) {
    if (!answers[label]) problems.push(`ordinary traffic never answered '${label}'`);
  }
  return problems;
}

function mb(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}

/** Sleeps `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export { count };
