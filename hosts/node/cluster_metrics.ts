/**
 * One scrape for the whole `--workers` deployment (docs/operations.md "Metrics of a worker
 * deployment"): the worker a scrape lands on sends its own exposition text to the primary, the
 * primary asks every other worker over IPC at once, waits at most DEFAULTS.metricsWorkerWaitMs,
 * and answers the merged text (src/observability/aggregate.ts).
 *
 * - Restarts: the primary keeps each worker's last text; when a worker exits its counters and
 *   histograms stay in the sum (`retired`), so summed counters never go backwards (what it counted
 *   after its last scrape is lost). `process_start_time_seconds{worker}` shows the restart.
 * - A stalled worker: the scrape answers without waiting longer, its counters from its last text,
 *   `svc_metrics_workers_missing` counting it. A text over DEFAULTS.metricsWorkerTextMaxBytes
 *   counts as missing. At most DEFAULTS.metricsScrapesPending scrapes are collected at once; more
 *   are answered from the last texts known. A primary that does not answer within twice the wait:
 *   the worker answers its own text (the others missing).
 */
import type { Worker } from 'node:cluster';
import process from 'node:process';
import {
  acceptableText,
  DEFAULTS,
  type Families,
  mergeDeployment,
  retire,
  type WorkerText,
} from '../../src/host_api.ts';

/** The messages of a scrape between a worker and the primary. */
type MetricsMessage =
  | { svc: 'metrics-ask'; id: number; text: string }
  | { svc: 'metrics-give'; id: number }
  | { svc: 'metrics-text'; id: number; text: string }
  | { svc: 'metrics-merged'; id: number; text: string };

function asMessage(message: unknown): MetricsMessage | null {
  if (typeof message !== 'object' || message === null) return null;
  const m = message as Record<string, unknown>;
  if (typeof m.svc !== 'string' || !m.svc.startsWith('metrics-')) return null;
  return typeof m.id === 'number' ? m as MetricsMessage : null;
}

interface Collection {
  asker: Worker;
  askId: number;
  waiting: Set<Worker>;
  answered: Set<Worker>;
  timer: ReturnType<typeof setTimeout>;
}

/** The primary's side: `message` from each worker's IPC, `exited` when one exits. */
export function createPrimaryMetrics(count: number) {
  const last = new Map<Worker, WorkerText>();
  const index = new Map<Worker, number>();
  const retired: Families = new Map();
  const pending = new Map<number, Collection>();
  let nextId = 0;

  const answer = (asker: Worker, askId: number, fresh: ReadonlySet<Worker>) => {
    const parts = [...last].map(([w, part]) => ({ ...part, fresh: fresh.has(w) }));
    const text = mergeDeployment(count, parts, retired);
    if (asker.isConnected()) asker.send({ svc: 'metrics-merged', id: askId, text });
  };
  const finish = (id: number) => {
    const c = pending.get(id);
    if (!c) return;
    pending.delete(id);
    clearTimeout(c.timer);
    answer(c.asker, c.askId, new Set([c.asker, ...c.answered]));
  };
  const ask = (asker: Worker, askId: number) => {
    const others = [...index.keys()].filter((w) => w !== asker && w.isConnected());
    if (others.length === 0 || pending.size >= DEFAULTS.metricsScrapesPending) {
      return answer(asker, askId, new Set([asker]));
    }
    const id = nextId++;
    const timer = setTimeout(() => finish(id), DEFAULTS.metricsWorkerWaitMs);
    pending.set(id, { asker, askId, waiting: new Set(others), answered: new Set(), timer });
    for (const w of others) w.send({ svc: 'metrics-give', id });
  };

  return {
    /** A worker forked as `i`. */
    started(worker: Worker, i: number) {
      index.set(worker, i);
    },
    /** Handles a metrics message from `worker`; false for any other message. */
    message(worker: Worker, message: unknown): boolean {
      const m = asMessage(message);
      if (!m || (m.svc !== 'metrics-ask' && m.svc !== 'metrics-text')) return false;
      const i = index.get(worker);
      if (i === undefined) return true;
      const known = acceptableText(m.text);
      if (known) last.set(worker, { worker: String(i), text: m.text, fresh: true });
      if (m.svc === 'metrics-ask') {
        if (!known) last.delete(worker);
        ask(worker, m.id);
      } else if (known) {
        const c = pending.get(m.id);
        if (c?.waiting.delete(worker)) c.answered.add(worker);
        if (c && c.waiting.size === 0) finish(m.id);
      }
      return true;
    },
    /** `worker` exited: its last counts stay in the sum. */
    exited(worker: Worker) {
      const part = last.get(worker);
      if (part) retire(retired, part.text);
      last.delete(worker);
      index.delete(worker);
      for (const [id, c] of pending) {
        if (c.waiting.delete(worker) && c.waiting.size === 0) finish(id);
      }
    },
  };
}

/**
 * A worker's side: `deployment` is the proxy's `metricsDeployment` hook; `answer` hands the
 * primary this worker's text when asked (`own`: the proxy's `metricsText`).
 */
export function createWorkerMetrics(index: number, count: number) {
  const waiting = new Map<number, (text: string) => void>();
  let nextId = 0;
  const alone = (own: string) =>
    mergeDeployment(count, [{ worker: String(index), text: own, fresh: true }]);
  return {
    deployment(own: string): Promise<string> {
      if (!process.send || waiting.size >= DEFAULTS.metricsScrapesPending) {
        return Promise.resolve(alone(own));
      }
      const id = nextId++;
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiting.delete(id);
          resolve(alone(own));
        }, 2 * DEFAULTS.metricsWorkerWaitMs);
        waiting.set(id, (text) => {
          clearTimeout(timer);
          waiting.delete(id);
          resolve(text);
        });
        process.send!({ svc: 'metrics-ask', id, text: own } satisfies MetricsMessage);
      });
    },
    answer(own: () => Promise<string | null>) {
      process.on('message', (message: unknown) => {
        const m = asMessage(message);
        if (m?.svc === 'metrics-merged') return waiting.get(m.id)?.(m.text);
        if (m?.svc !== 'metrics-give') return;
        void own().then((text) => {
          if (text !== null && process.connected) {
            process.send!({ svc: 'metrics-text', id: m.id, text } satisfies MetricsMessage);
          }
        });
      });
    },
  };
}
