/**
 * The fault harness (docs/operations.md "Faults"; the contract is fault.ts): a gateway host started
 * as its own process with metrics on (METRICS=1, loopback), so its file descriptors and resident
 * memory are its alone; its counts read from `/proc/<pid>/fd` and its `/svc/metrics` gauges; a
 * memory sampler keeping the peak; and the check that counts came back to their baseline.
 * The ordinary-traffic driver is traffic.ts.
 */
import { type ChildProcess, denoRun, ROOT, startChildProcess } from '../host_process.ts';
import type { FaultCounts, FaultHost, FaultMemory } from './fault.ts';

/** How often the memory sampler reads VmRSS (ms). */
const SAMPLE_MS = 100;

/** Gauge name → FaultCounts field. */
const GAUGES: Readonly<Record<string, keyof FaultCounts>> = {
  svc_graphql_in_flight: 'graphqlInFlight',
  svc_rest_in_flight: 'restInFlight',
  svc_relay_sockets: 'relaySockets',
  svc_relay_subscriptions: 'relaySubscriptions',
  svc_relay_upstream_sockets: 'relayUpstreamSockets',
  svc_relay_timers: 'relayTimers',
  svc_tenants_tracked: 'tenantsTracked',
};

/** The FaultCounts fields of a Prometheus exposition text (labelled series summed). */
export function gaugesOf(text: string): FaultCounts {
  const counts: FaultCounts = {};
  for (const line of text.split('\n')) {
    const match = /^(svc_[a-z_]+)(?:\{[^}]*\})?\s+(\S+)$/.exec(line);
    const field = match ? GAUGES[match[1]] : undefined;
    if (match && field) counts[field] = (counts[field] ?? 0) + Number(match[2]);
  }
  return counts;
}

/** The gauges of the gateway at `url` (GET /svc/metrics from loopback; METRICS=1 must be on). */
export async function readGauges(url: string): Promise<FaultCounts> {
  const response = await fetch(`${url}/svc/metrics`);
  const text = await response.text();
  if (!response.ok) throw new Error(`GET /svc/metrics answered ${response.status}: ${text}`);
  return gaugesOf(text);
}

/** Open file descriptors of `pid`. */
export async function openFds(pid: number): Promise<number> {
  let n = 0;
  for await (const _ of Deno.readDir(`/proc/${pid}/fd`)) n++;
  return n;
}

/** Resident memory of `pid`, bytes (VmRSS of /proc/<pid>/status). */
export async function residentBytes(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  return match ? Number(match[1]) * 1024 : 0;
}

/**
 * Starts keeping the peak of `rss()` (bytes, read every SAMPLE_MS); `stop()` answers the
 * resident memory before, the peak and after.
 */
export function sampleMemory(rss: () => Promise<number>): { stop(): Promise<FaultMemory> } {
  let peak = 0;
  const first = rss().then((before) => (peak = Math.max(peak, before), before));
  const timer = setInterval(async () => peak = Math.max(peak, await rss()), SAMPLE_MS);
  return {
    async stop() {
      clearInterval(timer);
      const before = await first;
      const after = await rss();
      return { before, peak: Math.max(peak, after), after };
    },
  };
}

/** Polls `read` every 20 ms until `test` holds (true) or `limitMs` passed (false). */
export async function settles<T>(
  read: () => Promise<T>,
  test: (value: T) => boolean,
  limitMs: number,
): Promise<{ held: boolean; last: T }> {
  const end = Date.now() + limitMs;
  let last = await read();
  while (!test(last)) {
    if (Date.now() > end) return { held: false, last };
    await new Promise((r) => setTimeout(r, 20));
    last = await read();
  }
  return { held: true, last };
}

/** A gateway process under a fault. */
export interface FaultGateway {
  host: FaultHost;
  /** `http://127.0.0.1:<port>` */
  url: string;
  process: ChildProcess;
  /** Open fds and the metrics gauges right now. */
  counts(): Promise<FaultCounts>;
  /** Resident memory now, bytes. */
  rss(): Promise<number>;
  /** Starts keeping the peak of resident memory; `stop()` answers before, peak and after. */
  sampleMemory(): { stop(): Promise<FaultMemory> };
  stop(): Promise<void>;
}

/** JSON-safe proxy options the environment cannot carry (timeoutMs, slowTimeoutMs). */
export type FaultOptions = Record<string, unknown>;

/**
 * Starts `host` as a process with `env` (plus a loopback bind on a free port and METRICS=1) and
 * `options` (scripts/faults/deno_gateway.ts, node_gateway.mjs: the hosts' own entries plus
 * options); resolves once it listens. Throws when it exits first (its output in the message).
 */
export async function startFaultGateway(
  host: FaultHost,
  env: Record<string, string>,
  options: FaultOptions = {},
): Promise<FaultGateway> {
  const process = await startChildProcess({
    command: host === 'deno'
      ? denoRun('scripts/faults/deno_gateway.ts')
      : ['node', `${ROOT}scripts/faults/node_gateway.mjs`],
    env: {
      HOST: '127.0.0.1',
      PORT: '0',
      METRICS: '1',
      SVC_FAULT_OPTIONS: JSON.stringify(options),
      ...env,
    },
    ready: /listening on (http:\/\/\S+)/,
  });
  const pid = process.pid;
  const rss = () => residentBytes(pid).catch(() => 0);
  return {
    host,
    url: process.url,
    process,
    async counts() {
      return { fds: await openFds(pid), ...await readGauges(process.url) };
    },
    rss,
    sampleMemory: () => sampleMemory(rss),
    stop: () => process.stop(),
  };
}

/** How far a count may end above its baseline: file descriptors wobble (timers, pools). */
export const FD_SLACK = 8;

/**
 * Problems of `after` against `before`: every gauge back at (or below) its baseline, fds within
 * {@link FD_SLACK}, the upstream stand-in's connections back to its baseline.
 */
export function countProblems(before: FaultCounts, after: FaultCounts): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(after) as (keyof FaultCounts)[]) {
    const was = before[key];
    const now = after[key];
    if (was === undefined || now === undefined) continue;
    const slack = key === 'fds' ? FD_SLACK : 0;
    if (now > was + slack) problems.push(`${key} ${was} -> ${now}`);
  }
  return problems;
}

/**
 * Problems of resident memory: after more than `growthBytes` above before (the stated bound;
 * {@link RSS_GROWTH_BYTES} by default).
 */
export function memoryProblems(memory: FaultMemory, growthBytes = RSS_GROWTH_BYTES): string[] {
  const grown = memory.after - memory.before;
  return grown > growthBytes
    ? [`resident memory grew ${mib(grown)} MiB (bound ${mib(growthBytes)} MiB)`]
    : [];
}

/**
 * The stated bound on resident-memory growth over one fault: 160 MiB. A runtime keeps the heap
 * it grew to (V8 semispaces, allocator caches, JIT code), so RSS after a fault that moved
 * megabyte answers sits well above where it started without anything being held; a leak
 * shows as growth past this bound on a longer soak.
 */
export const RSS_GROWTH_BYTES = 160 * 1024 * 1024;

/** Bytes as MiB with one decimal. */
export function mib(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1);
}
