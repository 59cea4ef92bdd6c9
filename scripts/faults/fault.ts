/**
 * The contract every fault of the fault suite follows (`deno task soak`, tests/faults/).
 *
 * A fault drives one host of the gateway, running as its own process, through one thing the
 * world does wrong (an upstream that resets mid-answer, a backend that stalls, a browser that
 * aborts), while ordinary traffic keeps flowing, and reports what it saw: the answers the
 * callers got, the gateway's counts before and after, and its resident memory. The soak
 * runner prints one table row per report; the tests assert on the same reports.
 */

/** The two hosts a fault can drive. */
export type FaultHost = 'deno' | 'node';

/**
 * What a gateway process holds at one moment. Every field is a count read from the process
 * (`/proc/<pid>/fd`, its `/svc/metrics` gauges); a field a host cannot report is omitted.
 */
export interface FaultCounts {
  /** Open file descriptors of the gateway process. */
  fds?: number;
  /** GraphQL calls in flight (svc_graphql_in_flight). */
  graphqlInFlight?: number;
  /** REST uploads in flight (svc_rest_in_flight). */
  restInFlight?: number;
  /** Relay sockets open (svc_relay_sockets). */
  relaySockets?: number;
  /** Subscriptions open across the relay (svc_relay_subscriptions). */
  relaySubscriptions?: number;
  /** Upstream legs of relay sockets open (svc_relay_upstream_sockets). */
  relayUpstreamSockets?: number;
  /** Timers the relay holds (svc_relay_timers). */
  relayTimers?: number;
  /** Tenant buckets tracked (svc_tenants_tracked). */
  tenantsTracked?: number;
  /** Sockets the upstream (or backend) stand-in still has open from the gateway. */
  upstreamConnections?: number;
}

/** Resident memory of the gateway process over one run, in bytes. */
export interface FaultMemory {
  before: number;
  peak: number;
  after: number;
}

/** What one run of a fault saw. */
export interface FaultReport {
  /** The fault's name (one table row), e.g. 'upstream: reset mid-answer'. */
  fault: string;
  host: FaultHost;
  /**
   * The answers callers got, by label: an HTTP status and code ('504 ProxyUpstreamUnavailable'),
   * a close code and reason ('close 1012'), or 'ok' for ordinary traffic that went through.
   */
  answers: Record<string, number>;
  /** Counts once the process is warm, before the fault. */
  before: FaultCounts;
  /** Counts after the fault ended and the process settled. */
  after: FaultCounts;
  memory: FaultMemory;
  /** Problems found (an unexpected answer, a count not back at its baseline); empty: passed. */
  problems: string[];
}

/** How long and how hard to run a fault. */
export interface FaultRunOptions {
  /** Rough time to spend on the fault, ms (the CI test uses a short one). */
  durationMs: number;
}

/** One fault of the suite. */
export interface Fault {
  /** Unique name, '<what>: <how>' (e.g. 'backend: gate lookups time out'). */
  name: string;
  /** The hosts it runs on (both, unless a host cannot have the fault). */
  hosts: readonly FaultHost[];
  /**
   * Starts what it needs (upstream or backend stand-in, the gateway host as a process), drives
   * the fault with ordinary traffic alongside, stops everything it started, and reports. Must
   * not throw for a gateway misbehaving: that goes in `problems`. Throws only when its own
   * fixtures fail to start.
   */
  run(host: FaultHost, options: FaultRunOptions): Promise<FaultReport>;
}
