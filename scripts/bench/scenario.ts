/**
 * The shapes every bench scenario shares: what a scenario is, what it reports, and the context it
 * runs in (the sandbox process, the settings, helpers to start gateways and to measure a target).
 * A new scenario is a module exporting a `Scenario`, added to the list in scenarios/mod.ts.
 */
import type { ChildProcess, HostKind, HostProcess } from '../host_process.ts';

/** Settings of one bench run (flags of main.ts). */
export interface BenchSettings {
  /** Seconds each measurement lasts (--duration). */
  durationS: number;
  /** Seconds of discarded load before each measurement (--warmup). */
  warmupS: number;
  /** Seconds of each measurement of the 'targets' rounds (--duration when given, else 10). */
  roundS: number;
  /** --pin: measured servers on the last CPU, the bench and its fixtures on CPU 0 (pin.ts). */
  pin: boolean;
}

/** Something a scenario sends load to. */
export interface Target {
  /** e.g. 'direct', 'deno', 'node', 'checks off'. */
  label: string;
  /** The full URL the POST goes to. */
  url: string;
  /** Extra request headers (the direct baseline carries the sandbox's authorization). */
  headers?: Record<string, string>;
  /** The process whose CPU time is read around the run (the server measured). */
  pid: number;
}

/** One measured run. Latencies in ms (2xx answers only), CPU in ms per answered request. */
export interface Measurement {
  target: string;
  connections: number;
  requests: number;
  non2xx: number;
  /** Answers per HTTP status. */
  statuses: Record<string, number>;
  errors: number;
  durationS: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  /** CPU time (user + system) of the target's process per request, ms. */
  cpuMsPerRequest: number;
}

/** A subject against a baseline at one concurrency, both measured in the same run. */
export interface Comparison {
  what: string;
  connections: number;
  baseline: string;
  subject: string;
  /** subject rps / baseline rps. */
  rpsRatio: number;
  /** subject p50 - baseline p50, ms. */
  addedP50Ms: number;
  /** subject p99 - baseline p99, ms. */
  addedP99Ms: number;
  /** subject CPU per request / baseline CPU per request (each of its own process). */
  cpuRatio: number;
}

/** What a scenario hands back. */
export interface ScenarioReport {
  name: string;
  title: string;
  /** How it was set up, one sentence a line (printed under the title, kept in the JSON). */
  notes: string[];
  measurements: Measurement[];
  comparisons: Comparison[];
  /** Figures folded over interleaved rounds, min..max (the 'targets' scenario). */
  ranges?: Range[];
}

/** One figure of one subject over several rounds. */
export interface Range {
  subject: string;
  /** What the figure is, with its unit (e.g. 'c=32 req/s x direct', 'c=1 added p50 ms'). */
  figure: string;
  min: number;
  max: number;
  /** The middle value (the mean of the two middle ones for an even count). */
  median: number;
  /** Every round's (or slice's) value, in order. */
  values: number[];
}

/** How a scenario starts a gateway in its own process. */
export interface GatewaySpec {
  kind: HostKind;
  /** Environment over SVC_TOKEN, SVC_API_BASE (the sandbox), HOST=127.0.0.1 and PORT=0. */
  env?: Record<string, string>;
  /** Deno only: a script instead of hosts/deno/serve.ts (e.g. scripts/bench/gateway_runner.ts). */
  denoScript?: string;
  /** Another checkout's root (ending in '/'): its host runs (scenario targets, SVC_BENCH_BASELINE). */
  root?: string;
}

/** What a scenario runs with. Gateways it starts are stopped when it returns. */
export interface BenchContext {
  settings: BenchSettings;
  /** The sandbox upstream, in its own process. */
  sandbox: ChildProcess;
  /** The token the sandbox accepts (never printed). */
  token: string;
  /** Starts a gateway in its own process (moved to the servers' CPU under --pin). */
  startGateway(spec: GatewaySpec): Promise<HostProcess>;
  /** Under --pin, moves a measured server the scenario started itself (nginx) to the servers' CPU. */
  placeServer(pid: number): Promise<void>;
  /**
   * Loads every target at once, each on `connections` connections for `durationS` seconds (no
   * probe, no warm-up), reading each target's CPU time around the run: one Measurement per
   * target, in order. Targets must be distinct processes.
   */
  measureTogether(
    targets: readonly Target[],
    body: string,
    connections: number,
    durationS: number,
  ): Promise<Measurement[]>;
  /** Sends `body` once; throws unless the answer is 200 with `data` and no `errors`. */
  probe(target: Target, body: string): Promise<void>;
  /** Checks one request is answered 200 with data, warms up, then measures. */
  measure(
    target: Target,
    body: string,
    connections: number,
    durationS?: number,
  ): Promise<Measurement>;
}

/** One benchmark scenario. */
export interface Scenario {
  /** Short name for --only and the JSON (e.g. 'overhead'). */
  name: string;
  /** One line saying what it measures. */
  title: string;
  run(context: BenchContext): Promise<ScenarioReport>;
}

/** Compares `subject` with `baseline` (same concurrency) into a Comparison. */
export function compare(what: string, baseline: Measurement, subject: Measurement): Comparison {
  return {
    what,
    connections: subject.connections,
    baseline: baseline.target,
    subject: subject.target,
    rpsRatio: subject.rps / baseline.rps,
    addedP50Ms: subject.p50Ms - baseline.p50Ms,
    addedP99Ms: subject.p99Ms - baseline.p99Ms,
    cpuRatio: subject.cpuMsPerRequest / baseline.cpuMsPerRequest,
  };
}
