/**
 * The bench's report: readable tables on stdout, and the same figures as JSON
 * (bench-results.json, git-ignored).
 */
import type { ScenarioReport } from './scenario.ts';

/** The JSON file's shape. */
export interface BenchResults {
  /** ISO time the run started. */
  startedAt: string;
  settings: { durationS: number; warmupS: number; roundS: number };
  machine: { cpus: number; deno: string; node: string; loadGenerator: string };
  scenarios: ScenarioReport[];
}

/** A plain text table: first row is the header, numbers right-aligned. */
export function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (row: string[]) =>
    row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  return [
    line(rows[0]),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...rows.slice(1).map(line),
  ].join('\n');
}

const fixed = (
  value: number,
  digits: number,
) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
const signed = (value: number, digits: number) =>
  Number.isFinite(value) ? `${value >= 0 ? '+' : ''}${value.toFixed(digits)}` : '-';

/** One scenario as text: title, notes, measurements, comparisons. */
export function formatScenario(report: ScenarioReport): string {
  const measured = [
    [
      'target',
      'conc',
      'requests',
      'req/s',
      'p50 ms',
      'p99 ms',
      'mean ms',
      'cpu ms/req',
      'non-2xx',
      'errors',
    ],
    ...report.measurements.map((m) => [
      m.target,
      String(m.connections),
      String(m.requests),
      fixed(m.rps, 0),
      fixed(m.p50Ms, 3),
      fixed(m.p99Ms, 3),
      fixed(m.meanMs, 3),
      fixed(m.cpuMsPerRequest, 3),
      String(m.non2xx),
      String(m.errors),
      Object.entries(m.statuses).map(([status, n]) => `${status}:${n}`).join(' '),
    ]),
  ];
  const compared = [
    ['comparison', 'conc', 'req/s ratio', 'added p50 ms', 'added p99 ms', 'cpu/req ratio'],
    ...report.comparisons.map((c) => [
      c.what,
      String(c.connections),
      fixed(c.rpsRatio, 2),
      signed(c.addedP50Ms, 3),
      signed(c.addedP99Ms, 3),
      fixed(c.cpuRatio, 2),
    ]),
  ];
  const ranges = report.ranges
    ? [
      '',
      table([
        ['subject', 'figure', 'min..max', 'median', 'per round (slice)'],
        ...report.ranges.map((r) => [
          r.subject,
          r.figure,
          `${fixed(r.min, 3)}..${fixed(r.max, 3)}`,
          fixed(r.median, 3),
          r.values.map((v) => fixed(v, 3)).join(' '),
        ]),
      ]),
    ]
    : [];
  return [
    `== ${report.name}: ${report.title}`,
    ...report.notes.map((n) => `   ${n}`),
    '',
    table(measured),
    '',
    table(compared),
    ...ranges,
  ].join('\n');
}
