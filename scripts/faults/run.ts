/**
 * Runs one upstream or browser fault (docs/operations.md "Faults") as fault.ts says: the sandbox
 * upstream behind the stand-in (scripts/faults/upstream/stand_in.ts), a gateway process pointed at
 * the stand-in, a warm-up, the counts before, the ordinary traffic and the fault together, the
 * counts once settled, resident memory before, peak and after; problems for any answer outside
 * the expected ones, any required answer never seen, and any count not back at its baseline.
 */
import { type Sandbox, SANDBOX_TOKEN, startSandbox } from '../sandbox/mod.ts';
import type { FaultCounts, FaultHost, FaultReport, FaultRunOptions } from './fault.ts';
import {
  countProblems,
  type FaultGateway,
  type FaultOptions,
  memoryProblems,
  settles,
  startFaultGateway,
} from './harness.ts';
import {
  BOT_QUERY,
  count,
  disposeQuietly,
  FAULT_QUERY,
  graphql,
  ORDINARY_UPLOAD,
  socketClient,
  startOrdinaryTraffic,
  subscribeOnce,
  type Tally,
  upload,
} from './traffic.ts';
import { startUpstreamStandIn, type UpstreamStandIn } from './upstream/stand_in.ts';
import { WORLD_IDS } from '../sandbox/mod.ts';

/** What a fault's drive gets. */
export interface FaultWorld {
  host: FaultHost;
  sandbox: Sandbox;
  standIn: UpstreamStandIn;
  gateway: FaultGateway;
  /** Where the fault's own answers are counted (by label). */
  tally: Tally;
  /** Run until this time (ms since the epoch). */
  until: number;
}

/** One fault's setup and drive. */
export interface FaultScenario {
  /** Gateway environment beyond the token and upstream. */
  env?: Record<string, string>;
  /** Gateway options the environment cannot carry. */
  options?: FaultOptions;
  /** The gateway's upstream base instead of the stand-in (a closed port, an unresolvable name). */
  upstream?: (standIn: UpstreamStandIn) => string;
  /** Drives the fault until `world.until`, counting its callers' answers in `world.tally`. */
  drive(world: FaultWorld): Promise<void>;
  /** Every label the fault's own callers may get. */
  expected: readonly string[];
  /**
   * Labels the fault's own callers must each get at least once (default: every `expected`
   * label); set when a fault's outcome may take one of several labels.
   */
  required?: readonly string[];
  /** Every label ordinary traffic may get (default: only 'ok'). */
  others?: readonly string[];
  /**
   * stderr lines the fault may make the gateway write (an error's stack lines go with it); any
   * other line is a problem.
   */
  logs?: RegExp;
  /** Whether the ordinary warm-up must succeed before the fault (default true). */
  warm?: boolean;
}

/** The tenant rate of a gateway under a fault (requests a minute). */
const FAULT_TENANT_RATE = 1_000_000;

/** How long counts may take to come back once the fault ended (ms). */
const SETTLE_MS = 8_000;

/** Runs `scenario` named `name` on `host`; see the module comment. */
export async function runFault(
  name: string,
  host: FaultHost,
  options: FaultRunOptions,
  scenario: FaultScenario,
): Promise<FaultReport> {
  const sandbox = await startSandbox();
  const standIn = startUpstreamStandIn({ kind: 'answer' }, { target: sandbox.url });
  let gateway: FaultGateway | null = null;
  try {
    gateway = await startFaultGateway(host, {
      SVC_TOKEN: SANDBOX_TOKEN,
      SVC_API_BASE: scenario.upstream?.(standIn) ?? standIn.url,
      // the faults are not about the tenant's rate: its ceiling is out of the way
      TENANT_REQUESTS_PER_MINUTE: String(FAULT_TENANT_RATE),
      ...scenario.env,
    }, scenario.options);
    return await measure(name, host, options, scenario, { sandbox, standIn, gateway });
  } finally {
    await gateway?.stop();
    await standIn.close();
    await sandbox.close();
  }
}

async function measure(
  name: string,
  host: FaultHost,
  options: FaultRunOptions,
  scenario: FaultScenario,
  parts: { sandbox: Sandbox; standIn: UpstreamStandIn; gateway: FaultGateway },
): Promise<FaultReport> {
  const { gateway, standIn } = parts;
  const problems: string[] = [];
  const warm = await warmUp(gateway.url);
  if (scenario.warm !== false) problems.push(...warm);
  const countsNow = async (): Promise<FaultCounts> => ({
    ...await gateway.counts(),
    upstreamConnections: standIn.open + standIn.piped,
  });
  // the warm-up's sockets close asynchronously: the baseline is taken once they did
  const before = (await settles(
    countsNow,
    (c) => !c.relaySockets && !c.upstreamConnections,
    SETTLE_MS,
  )).last;
  const stderrBefore = gateway.process.errors.length;
  const memory = gateway.sampleMemory();
  const tally: Tally = {};
  const traffic = startOrdinaryTraffic(gateway.url, tally);
  const world = { host, ...parts, tally, until: Date.now() + options.durationMs };
  try {
    await scenario.drive(world);
  } catch (error) {
    problems.push(`the fault's drive failed: ${(error as Error).message}`);
  }
  await traffic.stop();
  const settled = await settles(
    countsNow,
    (after) => countProblems(before, after).length === 0,
    SETTLE_MS,
  );
  const after = settled.last;
  const mem = await memory.stop();
  problems.push(...answerProblems(tally, scenario), ...countProblems(before, after));
  problems.push(
    ...memoryProblems(mem),
    ...stderrProblems(gateway.process.errors.slice(stderrBefore), scenario.logs),
  );
  return { fault: name, host, answers: tally, before, after, memory: mem, problems };
}

/**
 * One ordinary POST, upload and subscription, and one call of the fault's own shape (its
 * no-bot tenant bucket then exists before the counts are taken), must go through first.
 */
async function warmUp(gateway: string): Promise<string[]> {
  const client = socketClient(gateway);
  const labels = await Promise.all([
    graphql(gateway, { query: BOT_QUERY, variables: { botID: WORLD_IDS.bot1 } }),
    graphql(gateway, { query: FAULT_QUERY }),
    upload(gateway, ORDINARY_UPLOAD),
    subscribeOnce(client),
  ]);
  await disposeQuietly(client);
  return labels.filter((l) => l !== 'ok').map((l) => `warm-up answered ${l}`);
}

/**
 * A fault is ordinary traffic for a gateway: nothing it does may reach the process's stderr
 * (an uncaught error's trace). Runtime deprecation notices aside.
 */
function stderrProblems(lines: string[], allowed?: RegExp): string[] {
  const written = lines.filter((l) =>
    l.trim() !== '' && !/DeprecationWarning|--trace-deprecation/.test(l) &&
    !(allowed && (allowed.test(l) || /^\s+at /.test(l)))
  );
  return written.length ? [`the gateway wrote ${written.length} stderr lines: ${written[0]}`] : [];
}

/**
 * Labels outside the scenario's expected sets, and required labels never seen; ordinary traffic
 * must have gone through.
 */
function answerProblems(tally: Tally, scenario: FaultScenario): string[] {
  const problems: string[] = [];
  const others = new Set(['ok', ...(scenario.others ?? [])]);
  let faultCalls = 0;
  for (const [label, n] of Object.entries(tally)) {
    if (label.startsWith('others ')) {
      if (!others.has(label.slice(7))) problems.push(`${n} ordinary answered '${label.slice(7)}'`);
      continue;
    }
    faultCalls += n;
    if (!scenario.expected.includes(label)) problems.push(`${n} answered '${label}'`);
  }
  if (faultCalls === 0) problems.push('the fault drove no call');
  for (const label of scenario.required ?? scenario.expected) {
    if (!tally[label]) problems.push(`no call answered '${label}'`);
  }
  if (!tally['others ok'] && !scenario.others?.length) {
    problems.push('no ordinary call went through');
  }
  return problems;
}

/** Pause between two calls of one fault loop (ms): a fault is not a load test. */
const FAULT_GAP_MS = 20;

/** Runs `call` in `parallel` loops until `until`, counting each label in `tally`. */
export async function repeat(
  until: number,
  tally: Tally,
  call: () => Promise<string>,
  parallel = 1,
): Promise<void> {
  const loop = async () => {
    do {
      count(tally, await call());
      await new Promise((resolve) => setTimeout(resolve, FAULT_GAP_MS));
    } while (Date.now() < until);
  };
  await Promise.all(Array.from({ length: parallel }, loop));
}
