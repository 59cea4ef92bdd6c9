/**
 * Shared pieces of the memory-budget tests: a gateway host process with a 256 MiB budget, its
 * metrics, a resident-memory sampler (every 250 ms, peak kept) and a GraphQL POST loop that
 * records every status while a scenario runs.
 */
import { type HostKind, type HostProcess, startHostProcess } from '../../scripts/host_process.ts';
import { residentBytes } from '../../scripts/bench/proc.ts';
import { postGraphql } from '../helpers/assertions.ts';

export const MIB = 1024 * 1024;
/** The memory budget these tests give the gateway: 256 MiB. */
export const BUDGET_BYTES = 256 * MIB;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts `kind` against `upstream` with the 256 MiB budget and metrics on. */
export async function startGateway(
  kind: HostKind,
  upstream: string,
  env: Record<string, string> = {},
): Promise<HostProcess> {
  return await startHostProcess(kind, {
    env: {
      SVC_TOKEN: 'memory-test-master-token',
      SVC_API_BASE: upstream,
      HOST: '127.0.0.1',
      PORT: '0',
      METRICS: '1',
      MEMORY_BUDGET_BYTES: String(BUDGET_BYTES),
      ...env,
    },
  });
}

/** Every sample of the gateway's /svc/metrics, by line name (labels included). */
export async function metrics(gateway: HostProcess): Promise<Map<string, number>> {
  const text = await (await fetch(`${gateway.url}/svc/metrics`)).text();
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    out.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return out;
}

/** One metric (0 when absent). */
export async function metric(gateway: HostProcess, name: string): Promise<number> {
  return (await metrics(gateway)).get(name) ?? 0;
}

/** Waits until `check` is true, polling every 100 ms (throws after `ms`). */
export async function until(check: () => boolean | Promise<boolean>, ms: number, what: string) {
  const end = Date.now() + ms;
  while (!await check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** Resident memory of `pid` read every 250 ms until stopped; the peak kept. */
export function sampleResident(pid: number) {
  let peak = 0;
  let running = true;
  const done = (async () => {
    while (running) {
      try {
        peak = Math.max(peak, await residentBytes(pid));
      } catch { /* the process is gone: nothing more to read */ }
      await sleep(250);
    }
  })();
  return {
    get peak() {
      return peak;
    },
    async stop(): Promise<number> {
      running = false;
      await done;
      return peak;
    },
  };
}

/** A GraphQL POST every 250 ms until stopped; every status kept. */
export function postLoop(url: string) {
  const statuses: number[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      try {
        const res = await postGraphql(url, { query: 'query Q { currentUser { id } }' });
        await res.body?.cancel();
        statuses.push(res.status);
      } catch {
        statuses.push(0);
      }
      await sleep(250);
    }
  })();
  return {
    statuses,
    async stop(): Promise<number[]> {
      running = false;
      await done;
      return statuses;
    },
  };
}

export { residentBytes };
