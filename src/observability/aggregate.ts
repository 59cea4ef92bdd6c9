/**
 * One scrape for a whole worker deployment (docs/operations.md "Metrics of a worker
 * deployment"): the workers' exposition texts merged into one.
 *
 * - Counters and histograms: summed over the workers. A worker that did not answer this scrape
 *   counts with the last text known of it (`fresh: false`); a worker that exited keeps its last
 *   known counts in `retired` (the Node primary keeps them): summed counters never go backwards,
 *   at the price of what a dead worker counted after its last scrape.
 * - Gauges: summed (sockets, calls in flight, their ceilings: the deployment's capacity), except
 *   the families of WORKER_LABELLED, which keep one series per worker under a `worker` label.
 *   Gauges come from fresh texts only.
 * - Two series of their own: `svc_workers` (the deployment's workers) and
 *   `svc_metrics_workers_missing` (workers whose counts this scrape did not read fresh).
 */
import { DEFAULTS } from '../config/defaults.ts';
import { type Families, formatExposition, parseExposition, withLabel } from './exposition.ts';

/**
 * Gauges where a sum would mislead: one series per worker, labelled `worker`. The memory budget's
 * gauges are per process (docs/operations.md "Memory": each worker has its own budget), so each
 * worker's growth is read against its own budget.
 */
export const WORKER_LABELLED: ReadonlySet<string> = new Set([
  'process_resident_memory_bytes',
  'process_heap_used_bytes',
  'process_start_time_seconds',
  'svc_event_loop_lag_seconds',
  'svc_memory_budget_bytes',
  'svc_memory_held_bytes',
  'svc_memory_level',
  'svc_memory_resident_growth_bytes',
  'svc_shared_limits_fallback',
]);

/** One worker's exposition text: read this scrape (fresh) or the last one known. */
export interface WorkerText {
  /** The `worker` label: the Node worker's index, a Deno isolate's name. */
  worker: string;
  text: string;
  fresh: boolean;
}

/** Whether `text` is a worker's text this deployment accepts (a string within the size bound). */
export function acceptableText(text: unknown): text is string {
  return typeof text === 'string' &&
    new TextEncoder().encode(text).byteLength <= DEFAULTS.metricsWorkerTextMaxBytes;
}

const COUNTED = new Set(['counter', 'histogram']);

function addCounted(into: Families, from: Families): void {
  for (const [name, f] of from) {
    if (!COUNTED.has(f.type)) continue;
    let target = into.get(name);
    if (!target) into.set(name, target = { help: f.help, type: f.type, samples: new Map() });
    for (const [series, value] of f.samples) {
      target.samples.set(series, (target.samples.get(series) ?? 0) + value);
    }
  }
}

function addGauges(into: Families, from: Families, worker: string): void {
  for (const [name, f] of from) {
    if (COUNTED.has(f.type)) continue;
    let target = into.get(name);
    if (!target) into.set(name, target = { help: f.help, type: f.type, samples: new Map() });
    const labelled = WORKER_LABELLED.has(name);
    for (const [series, value] of f.samples) {
      const key = labelled ? withLabel(series, 'worker', worker) : series;
      target.samples.set(key, (target.samples.get(key) ?? 0) + value);
    }
  }
}

/** Adds the counters and histograms of an exited worker's last `text` to `retired`. */
export function retire(retired: Families, text: string): void {
  addCounted(retired, parseExposition(text));
}

/**
 * The deployment's exposition: `parts` merged (rules above), `retired` added, and the two
 * deployment series for `workers` workers.
 */
export function mergeDeployment(
  workers: number,
  parts: readonly WorkerText[],
  retired?: Families,
): string {
  const merged: Families = new Map();
  const ordered = [...parts].sort((a, b) =>
    a.worker.localeCompare(b.worker, 'en', { numeric: true })
  );
  for (const part of ordered) {
    const families = parseExposition(part.text);
    addCounted(merged, families);
    if (part.fresh) addGauges(merged, families, part.worker);
  }
  if (retired) addCounted(merged, retired);
  const fresh = new Set(parts.filter((p) => p.fresh).map((p) => p.worker)).size;
  const gauge = (name: string, help: string, value: number) =>
    merged.set(name, { help, type: 'gauge', samples: new Map([[name, value]]) });
  gauge('svc_workers', 'Worker processes (or isolates) of this deployment.', workers);
  gauge(
    'svc_metrics_workers_missing',
    'Workers whose counts this scrape did not read fresh.',
    Math.max(0, workers - fresh),
  );
  return formatExposition(merged);
}
