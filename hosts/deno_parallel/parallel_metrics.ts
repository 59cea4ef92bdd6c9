/**
 * One scrape for the whole `deno serve --parallel` deployment (docs/operations.md "Metrics of a
 * worker deployment"). The workers are isolates of one process: they talk over one
 * BroadcastChannel. The isolate a scrape lands on broadcasts its own text with the question;
 * every other isolate broadcasts its text back; the asker waits for all of them, at most
 * DEFAULTS.metricsWorkerWaitMs, and merges (src/observability/aggregate.ts).
 *
 * - Every isolate keeps the last text it heard from each peer: a peer that does not answer in
 *   time counts with its last text (counters never go backwards), `svc_metrics_workers_missing`
 *   counting it. Isolates do not restart on their own (a failing one ends the process), so no
 *   counts of an exited isolate are kept.
 * - Each isolate is labelled `worker` by a name it draws at start (8 hex digits): the runtime
 *   gives its workers no index.
 * - Bounds: a text over DEFAULTS.metricsWorkerTextMaxBytes, or a message of another shape, is
 *   dropped (that peer counts as missing); at most DEFAULTS.metricsScrapesPending scrapes are
 *   collected at once, more are answered from the last texts known.
 */
import { acceptableText, DEFAULTS, mergeDeployment } from '../../src/host_api.ts';

/** The BroadcastChannel the isolates of one process share. */
export const METRICS_CHANNEL = 'svc-gateway-metrics';

type IsolateMessage = { kind: 'ask' | 'text'; id: string; from: string; text: string };

function asMessage(data: unknown): IsolateMessage | null {
  if (typeof data !== 'object' || data === null) return null;
  const m = data as Record<string, unknown>;
  if (m.kind !== 'ask' && m.kind !== 'text') return null;
  if (typeof m.id !== 'string' || typeof m.from !== 'string' || !/^[0-9a-f]{8}$/.test(m.from)) {
    return null;
  }
  return acceptableText(m.text) ? m as IsolateMessage : null;
}

/**
 * This isolate's side: `deployment` is the proxy's `metricsDeployment` hook; `own` is the proxy's
 * `metricsText` (asked when a peer scrapes); `close` leaves the channel.
 */
export function createIsolateMetrics(count: number, own: () => Promise<string | null>) {
  const name = crypto.randomUUID().slice(0, 8);
  const channel = new BroadcastChannel(METRICS_CHANNEL);
  const last = new Map<string, string>();
  const waiting = new Map<string, { answered: Set<string>; done: () => void }>();
  let nextId = 0;

  channel.onmessage = (event: MessageEvent) => {
    const m = asMessage(event.data);
    if (!m) return;
    last.set(m.from, m.text);
    if (m.kind === 'ask') {
      void own().then((text) => {
        if (text !== null) channel.postMessage({ kind: 'text', id: m.id, from: name, text });
      });
      return;
    }
    const w = waiting.get(m.id);
    if (!w) return;
    w.answered.add(m.from);
    if (w.answered.size >= count - 1) w.done();
  };

  const merge = (text: string, answered: ReadonlySet<string>) =>
    mergeDeployment(count, [
      { worker: name, text, fresh: true },
      ...[...last].map(([worker, t]) => ({ worker, text: t, fresh: answered.has(worker) })),
    ]);

  return {
    name,
    deployment(text: string): Promise<string> {
      if (count <= 1 || waiting.size >= DEFAULTS.metricsScrapesPending) {
        return Promise.resolve(merge(text, new Set()));
      }
      const id = `${name}:${nextId++}`;
      const answered = new Set<string>();
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          waiting.delete(id);
          resolve(merge(text, answered));
        };
        const timer = setTimeout(done, DEFAULTS.metricsWorkerWaitMs);
        waiting.set(id, { answered, done });
        channel.postMessage({ kind: 'ask', id, from: name, text } satisfies IsolateMessage);
      });
    },
    close() {
      for (const w of [...waiting.values()]) w.done();
      channel.close();
    },
  };
}
