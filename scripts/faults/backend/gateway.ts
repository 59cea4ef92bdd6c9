/**
 * The gateway under a backend fault, as its own process (scripts/host_process.ts, as the bench
 * runs it), so its open file descriptors and resident memory are its alone: counts read from
 * `/proc/<pid>` and from its `/svc/metrics` gauges (METRICS=1, loopback), and a memory sampler
 * that keeps the peak.
 */
import { type HostProcess, startHostProcess } from '../../host_process.ts';
import { callerFetch } from './traffic.ts';
import type { FaultCounts, FaultHost, FaultMemory } from '../fault.ts';

/** How often the memory sampler reads VmRSS (ms). */
const SAMPLE_MS = 100;

/** A gateway process with its counters. */
export interface FaultGateway {
  host: FaultHost;
  /** `http://127.0.0.1:<port>` */
  url: string;
  process: HostProcess;
  /** Open fds and the metrics gauges right now. */
  counts(): Promise<FaultCounts>;
  /** Resident memory now, bytes. */
  rss(): Promise<number>;
  /** Starts keeping the peak of resident memory; `stop()` answers before/peak/after. */
  sampleMemory(): { stop(): Promise<FaultMemory> };
  stop(): Promise<void>;
}

/** Gauge name → FaultCounts field. */
const GAUGES: Record<string, keyof FaultCounts> = {
  svc_graphql_in_flight: 'graphqlInFlight',
  svc_rest_in_flight: 'restInFlight',
  svc_relay_sockets: 'relaySockets',
  svc_relay_subscriptions: 'relaySubscriptions',
  svc_tenants_tracked: 'tenantsTracked',
};

/** Open file descriptors of `pid`. */
export async function openFds(pid: number): Promise<number> {
  let n = 0;
  for await (const _ of Deno.readDir(`/proc/${pid}/fd`)) n++;
  return n;
}

/** Resident memory of `pid`, bytes (VmRSS). */
export async function residentBytes(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  return match ? Number(match[1]) * 1024 : 0;
}

/** The gauges of a metrics exposition text that FaultCounts has fields for. */
export function gaugesOf(text: string): FaultCounts {
  const counts: FaultCounts = {};
  for (const line of text.split('\n')) {
    const match = /^(svc_[a-z_]+)(?:\{[^}]*\})?\s+(\S+)$/.exec(line);
    const field = match ? GAUGES[match[1]] : undefined;
    if (match && field) counts[field] = (counts[field] ?? 0) + Number(match[2]);
  }
  return counts;
}

/**
 * Starts `host` with `env` (plus loopback bind on a free port and METRICS=1); resolves once it
 * listens. Throws when it exits first.
 */
export async function startFaultGateway(
  host: FaultHost,
  env: Record<string, string>,
): Promise<FaultGateway> {
  const process = await startHostProcess(host, {
    env: { HOST: '127.0.0.1', PORT: '0', METRICS: '1', ...env },
  });
  const pid = process.pid;
  const rss = () => residentBytes(pid).catch(() => 0);
  return {
    host,
    url: process.url,
    process,
    async counts() {
      const response = await callerFetch(`${process.url}/svc/metrics`);
      const text = await response.text();
      return { fds: await openFds(pid), ...gaugesOf(text) };
    },
    rss,
    sampleMemory() {
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
    },
    stop: () => process.stop(),
  };
}
