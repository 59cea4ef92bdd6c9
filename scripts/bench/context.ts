/**
 * The BenchContext a scenario runs in: starts gateways as their own processes against the
 * sandbox process (and stops them after the scenario), and measures a target: one probe request
 * that must be answered 200 with data, a discarded warm-up, then a load run framed by two reads
 * of the target process's CPU time.
 */
import { type HostProcess, startHostProcess } from '../host_process.ts';
import { cpuTimeMs } from './proc.ts';
import { pinProcess, serverCpu } from './pin.ts';
import { runLoad } from './load.ts';
import type { BenchContext, BenchSettings, GatewaySpec, Measurement, Target } from './scenario.ts';
import type { ChildProcess } from '../host_process.ts';

/**
 * Set on every gateway the bench starts: the per-tenant request rate (SPEC "Limits": 600 a
 * minute) would refuse nearly all of a load run with 429 TenantBusy, and the bench measures
 * forwarding and checks, not that limiter.
 */
export const BENCH_GATEWAY_ENV: Record<string, string> = {
  TENANT_REQUESTS_PER_MINUTE: '1000000000',
};

/**
 * Pause after each load run, ms: autocannon abandons the requests in flight when its time is up,
 * and the server still finishes them; without the pause they would count against the next run
 * (at concurrency 32 they fill graphqlMaxConcurrent and the next run's first requests get 503).
 */
export const SETTLE_MS = 300;

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

/** A context plus the cleanup the runner calls after each scenario. */
export interface ScenarioContext extends BenchContext {
  /** Stops every gateway started through this context. */
  stopGateways(): Promise<void>;
}

/** Sends the body once; throws unless the answer is 200 with `data` and no `errors`. */
async function probe(target: Target, body: string): Promise<void> {
  const response = await fetch(target.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...target.headers },
    body,
  });
  const text = await response.text();
  let json: { data?: unknown; errors?: unknown } = {};
  try {
    json = JSON.parse(text);
  } catch { /* reported below */ }
  if (response.status !== 200 || !json.data || json.errors !== undefined) {
    throw new Error(`${target.label}: the probe was answered ${response.status} ${text}`);
  }
}

/**
 * Loads every target at once for `durationS` seconds, each on `connections` connections, framed
 * by two reads of each target's CPU time (the second after SETTLE_MS): a Measurement per target.
 */
async function measureTogether(
  targets: readonly Target[],
  body: string,
  connections: number,
  durationS: number,
): Promise<Measurement[]> {
  const before = await Promise.all(targets.map((t) => cpuTimeMs(t.pid)));
  const loads = await Promise.all(
    targets.map(({ url, headers }) => runLoad({ url, body, headers, connections, durationS })),
  );
  await settle();
  const after = await Promise.all(targets.map((t) => cpuTimeMs(t.pid)));
  return loads.map((load, i) => ({
    target: targets[i].label,
    connections,
    ...load,
    cpuMsPerRequest: load.requests === 0 ? NaN : (after[i] - before[i]) / load.requests,
  }));
}

/** Builds the context of one scenario over the shared sandbox process. */
export function createContext(
  settings: BenchSettings,
  sandbox: ChildProcess,
  token: string,
): ScenarioContext {
  const gateways: HostProcess[] = [];
  const placeServer = async (pid: number) => {
    if (settings.pin) await pinProcess(pid, serverCpu());
  };
  return {
    settings,
    sandbox,
    token,
    async startGateway(spec: GatewaySpec) {
      const gateway = await startHostProcess(spec.kind, {
        env: {
          SVC_TOKEN: token,
          SVC_API_BASE: sandbox.url,
          HOST: '127.0.0.1',
          PORT: '0',
          ...BENCH_GATEWAY_ENV,
          ...spec.env,
        },
        denoScript: spec.denoScript,
        root: spec.root,
      });
      gateways.push(gateway);
      await placeServer(gateway.pid);
      return gateway;
    },
    placeServer,
    probe,
    async measure(target, body, connections, durationS = settings.durationS): Promise<Measurement> {
      await probe(target, body);
      if (settings.warmupS > 0) {
        const { url, headers } = target;
        await runLoad({ url, body, headers, connections, durationS: settings.warmupS });
        await settle();
      }
      const [measured] = await measureTogether([target], body, connections, durationS);
      return measured;
    },
    measureTogether,
    async stopGateways() {
      await Promise.allSettled(gateways.splice(0).map((g) => g.stop()));
    },
  };
}
