/**
 * `deno task soak [--duration 3m] [--only TEXT] [--host deno|node]` (docs/operations.md "Faults"):
 * runs every fault of the suite (upstream, browser, backend) on both hosts within the chosen
 * duration (3 minutes by default: the duration is shared evenly between the runs, at least
 * MIN_RUN_MS each, plus each run's own setup), and prints one table row per run: fault, host,
 * answers seen, the counts before and after, resident memory before, peak and after, and the
 * problems (none: PASS). Each run's verdict is printed as it ends (with its problems), the table at
 * the end. Exit code 1 when any run found a problem, 2 for a bad flag.
 *
 * The npm package must be built (`deno task soak` builds it first) for the Node host.
 */
import { parseArgs } from 'node:util';
import type { Fault, FaultCounts, FaultHost, FaultReport } from './fault.ts';
import { mib } from './harness.ts';
import { upstreamHttpFaults } from './upstream/http.ts';
import { upstreamSocketFaults } from './upstream/socket.ts';
import { notReadingFault } from './upstream/not_reading.ts';
import { browserAbortFaults } from './browser/aborts.ts';
import { silentConnectionsFault } from './browser/idle.ts';
import { faults as backendFaults } from './backend/mod.ts';

/** Every fault of the suite, in table order. */
export const ALL_FAULTS: readonly Fault[] = [
  ...upstreamHttpFaults,
  ...upstreamSocketFaults,
  notReadingFault,
  ...browserAbortFaults,
  silentConnectionsFault,
  ...backendFaults,
];

/** The default duration of the whole soak (ms). */
const DEFAULT_DURATION_MS = 3 * 60_000;
/** The least time a run gets (ms). */
const MIN_RUN_MS = 1_500;

const USAGE = 'usage: deno task soak [--duration 3m|90s|500ms] [--only TEXT] [--host deno|node]';

/** A duration flag (`3m`, `90s`, `500ms`, `2000`) in ms; null when it is not one. */
export function parseDuration(text: string): number | null {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (!match) return null;
  const unit = match[2] === 'm' ? 60_000 : match[2] === 's' ? 1_000 : 1;
  return Number(match[1]) * unit;
}

/** The counts of a report as `name a->b` for the ones that exist. */
function countsCell(before: FaultCounts, after: FaultCounts): string {
  const short: Record<keyof FaultCounts, string> = {
    fds: 'fd',
    graphqlInFlight: 'gql',
    restInFlight: 'rest',
    relaySockets: 'sock',
    relaySubscriptions: 'subs',
    relayUpstreamSockets: 'legs',
    relayTimers: 'timers',
    tenantsTracked: 'ten',
    upstreamConnections: 'up',
  };
  return (Object.keys(short) as (keyof FaultCounts)[])
    .filter((k) => before[k] !== undefined || after[k] !== undefined)
    .map((k) => `${short[k]} ${before[k] ?? '-'}>${after[k] ?? '-'}`)
    .join(' ');
}

/** One printed row of `report`. */
export function tableRow(report: FaultReport): string[] {
  const answers = Object.entries(report.answers)
    .sort((a, b) => b[1] - a[1])
    .map(([label, n]) => `${n} ${label}`)
    .join('; ');
  const m = report.memory;
  return [
    report.fault,
    report.host,
    answers,
    countsCell(report.before, report.after),
    `${mib(m.before)} / ${mib(m.peak)} / ${mib(m.after)}`,
    report.problems.length ? report.problems.join('; ') : 'PASS',
  ];
}

/** The header of the table. */
export const TABLE_HEADER = [
  'fault',
  'host',
  'answers seen',
  'counts before>after',
  'RSS MiB before / peak / after',
  'problems',
];

/** How long past its duration a run may take before it is reported as hung (ms). */
const HUNG_AFTER_MS = 3 * 60_000;

/**
 * Runs `fault` on `host`; a fixture failure, or a run still going HUNG_AFTER_MS past its
 * duration (left behind: the soak goes on), becomes a report with that problem.
 */
async function runOne(fault: Fault, host: FaultHost, durationMs: number): Promise<FaultReport> {
  const failed = (problem: string): FaultReport => ({
    fault: fault.name,
    host,
    answers: {},
    before: {},
    after: {},
    memory: { before: 0, peak: 0, after: 0 },
    problems: [problem],
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<FaultReport>((resolve) =>
    timer = setTimeout(
      () => resolve(failed(`still running ${HUNG_AFTER_MS / 1000} s past its duration`)),
      durationMs + HUNG_AFTER_MS,
    )
  );
  try {
    return await Promise.race([fault.run(host, { durationMs }), hung]);
  } catch (error) {
    return failed(`did not run: ${String((error as Error)?.message ?? error).split('\n')[0]}`);
  } finally {
    clearTimeout(timer);
  }
}

async function main(): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args: Deno.args,
      options: {
        duration: { type: 'string' },
        only: { type: 'string' },
        host: { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
    }).values;
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) return (console.log(USAGE), 0);
  const durationMs = values.duration ? parseDuration(values.duration) : DEFAULT_DURATION_MS;
  const hosts = values.host ? [values.host] : ['deno', 'node'];
  if (durationMs === null || hosts.some((h) => h !== 'deno' && h !== 'node')) {
    console.error(USAGE);
    return 2;
  }
  const chosen = ALL_FAULTS.filter((f) => !values.only || f.name.includes(values.only));
  const runs = chosen.flatMap((f) => f.hosts.filter((h) => hosts.includes(h)));
  const perRun = Math.max(MIN_RUN_MS, durationMs / Math.max(1, runs.length));
  console.log(`${runs.length} runs, ${Math.round(perRun)} ms of fault each`);
  const rows: string[][] = [];
  for (const fault of chosen) {
    for (const host of fault.hosts.filter((h) => hosts.includes(h))) {
      const report = await runOne(fault, host, perRun);
      const row = tableRow(report);
      const verdict = row[5] === 'PASS' ? 'PASS' : `FAIL (${row[5]})`;
      console.log(`${verdict} ${report.host} ${report.fault}`);
      rows.push(row);
    }
  }
  console.log(`\n${markdownTable([TABLE_HEADER, ...rows])}`);
  return rows.some((r) => r[5] !== 'PASS') ? 1 : 0;
}

/** Rows as a Markdown table (cells' pipes escaped). */
export function markdownTable(rows: string[][]): string {
  const cell = (text: string) => text.replaceAll('|', '\\|');
  const [head, ...body] = rows;
  return [
    `| ${head.map(cell).join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...body.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ].join('\n');
}

if (import.meta.main) Deno.exit(await main());
