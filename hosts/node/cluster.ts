/**
 * Worker processes on one port (docs/operations.md "Limits across processes"): `svc-gateway
 * --workers N|auto` or WORKERS runs N Node processes of the server host under node:cluster (the
 * primary accepts and hands each connection to a worker in turn). `auto` is one per core
 * (os.availableParallelism()).
 *
 * - One startup report per deployment: worker 0 prints the startup lines (and REFUSING TO SERVE:
 *   every worker then exits 1, and so does the primary); the primary prints
 *   `svc-gateway listening on <url> (N workers)` once every worker listens.
 * - Health: every worker answers /svc/health; a worker that dies after startup is replaced (at
 *   most DEFAULTS.workerRestartsPerMinute a minute, then the deployment stops, exit 1).
 * - SIGTERM or SIGINT on the primary: every worker drains (the server host's graceful close) and
 *   exits; the primary exits 0 once they all have.
 * - Metrics: a scrape of any worker answers for the whole deployment (cluster_metrics.ts).
 * - Tenant limits hold across the workers only through the backend (src/shared_limits/); without
 *   a service-role key each worker has its own, which the startup line says.
 */
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import process from 'node:process';
import { DEFAULTS } from '../../src/host_api.ts';
import { createPrimaryMetrics } from './cluster_metrics.ts';
import { whenLauncherGone } from './launcher.ts';

/** The environment variable naming a worker's index (0 prints the startup lines). */
export const WORKER_INDEX = 'SVC_WORKER_INDEX';

/**
 * Workers asked for by `--workers` or WORKERS: undefined or '' → 1 (no cluster); 'auto' → one
 * per core; a whole number 1..DEFAULTS.workersMax. Anything else: null (a usage error).
 */
export function workerCount(value: string | undefined): number | null {
  const given = value?.trim().toLowerCase();
  if (!given) return 1;
  if (given === 'auto') return Math.min(availableParallelism(), DEFAULTS.workersMax);
  if (!/^\d+$/.test(given)) return null;
  const n = Number(given);
  return n >= 1 && n <= DEFAULTS.workersMax ? n : null;
}

/** What a worker tells the primary. */
type WorkerMessage = { svc: 'listening'; url: string };

function isListening(message: unknown): message is WorkerMessage {
  return typeof message === 'object' && message !== null &&
    (message as Record<string, unknown>).svc === 'listening';
}

/**
 * The command's own arguments (what follows the program). node:cluster starts a worker as
 * `<execPath> <primary's argv[1]> <arguments>`; a single executable (Node's single executable
 * applications, scripts/build_binary.ts) puts its own path before whatever it was started with,
 * so there a worker has one word more before its arguments than the primary.
 */
export function commandArguments(): string[] {
  const sea = process.getBuiltinModule?.('node:sea') as { isSea(): boolean } | undefined;
  return process.argv.slice(cluster.isWorker && sea?.isSea() ? 3 : 2);
}

/** In a worker: this worker's index, or null outside a cluster. */
export function workerIndex(): number | null {
  return cluster.isWorker ? Number(process.env[WORKER_INDEX] ?? 0) : null;
}

/** In a worker: tells the primary it listens on `url`. */
export function reportListening(url: string): void {
  process.send?.({ svc: 'listening', url } satisfies WorkerMessage);
}

/**
 * The primary: forks `count` workers of this same program (same arguments), prints the one
 * listening line, replaces dead workers, drains them all on SIGTERM/SIGINT (or when npx, having
 * started it, goes away: ./launcher.ts). Never returns: the
 * process exits when the deployment stops.
 */
export function runPrimary(count: number, log: (line: string) => void = console.log): void {
  const listening = new Map<Worker, string>();
  const restarts: number[] = [];
  let started = false;
  let stopping = false;
  const metrics = createPrimaryMetrics(count);

  const stopAll = (code: number) => {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w) => w !== undefined);
    if (workers.length === 0) process.exit(code);
    cluster.on('exit', () => {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(code);
    });
    for (const worker of workers) worker.process.kill('SIGTERM');
  };

  const fork = (index: number) => {
    const worker = cluster.fork({ [WORKER_INDEX]: String(index) });
    metrics.started(worker, index);
    worker.on('message', (message: unknown) => {
      if (metrics.message(worker, message) || !isListening(message)) return;
      listening.set(worker, message.url);
      if (!started && listening.size === count) {
        started = true;
        log(`svc-gateway listening on ${message.url} (${count} workers)`);
      }
    });
    worker.on('exit', (code, signal) => {
      listening.delete(worker);
      metrics.exited(worker);
      if (stopping) return;
      if (!started) return stopAll(code === 0 ? 1 : code ?? 1);
      const now = Date.now();
      restarts.push(now);
      while (restarts.length > 0 && now - restarts[0] > 60_000) restarts.shift();
      if (restarts.length > DEFAULTS.workerRestartsPerMinute) {
        log(`svc-gateway: workers keep exiting (${restarts.length} in a minute); stopping`);
        return stopAll(1);
      }
      log(`svc-gateway: worker ${index} exited (${signal ?? code}); starting another`);
      fork(index);
    });
  };

  for (let i = 0; i < count; i++) fork(i);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stopAll(0));
  whenLauncherGone(process.env, () => stopAll(0));
}
