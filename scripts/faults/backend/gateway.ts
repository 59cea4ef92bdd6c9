/**
 * The gateway under a backend fault, as its own process (scripts/host_process.ts, as the bench
 * runs it), so its open file descriptors and resident memory are its alone: counts read from
 * `/proc/<pid>` and from its `/svc/metrics` gauges (METRICS=1, loopback), and a memory sampler
 * that keeps the peak.
 */
import { startHostProcess } from '../../host_process.ts';
import { callerFetch } from './traffic.ts';
import type { FaultHost } from '../fault.ts';
import { type FaultGateway, gaugesOf, openFds, residentBytes, sampleMemory } from '../harness.ts';

export type { FaultGateway };

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
    sampleMemory: () => sampleMemory(rss),
    stop: () => process.stop(),
  };
}
