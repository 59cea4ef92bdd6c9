/**
 * The gateway's metrics (beyond the spec; docs/operations.md "Metrics"): one registry the core
 * owns, rendered in the Prometheus text exposition format (version 0.0.4) by every host alike, from
 * web-standard code only. Off unless METRICS=1 or METRICS_TOKEN is set; when off the core holds no
 * registry and records nothing (the hot path tests one null).
 *
 * Series (labels never carry a token, a session id, an account or a bot id):
 * - `svc_requests_total{route, status}`: every answer of a claimed route (route: graphql, api,
 *   auth, publishing, admin, metrics; status: the HTTP status).
 * - `svc_refusals_total{code, step}`: GraphQL POST refusals by error code and the check-order
 *   row that refused (`step`: the spec's row number, "11.5" for the cost limits).
 * - `svc_upstream_duration_seconds{route}`: histogram of the upstream call of a forwarded
 *   GraphQL request (until its whole answer was read), buckets in DEFAULTS.metricsBucketsMs.
 * - `svc_gate_lookups_total{result}`: gate admissions from the cache (hit), by a backend lookup
 *   (miss), or refused by the miss budget (over_budget).
 * - `svc_relay_frames_total`: next frames relayed to browsers.
 * - `svc_shared_limits_calls_total{fn}`, `svc_shared_limits_fallbacks_total` and the gauge
 *   `svc_shared_limits_fallback`: the shared tenant limits' backend calls and outages
 *   (docs/operations.md "Limits across processes").
 * - `svc_relay_stall_closes_total{leg,cause}`: sockets closed 1013 by flow control
 *   (docs/operations.md "Slow and vanished peers on the relay").
 * - `svc_memory_actions_total{action}`: what the memory accountant did (docs/operations.md
 *   "Memory"): pressure (went past the pressure threshold), refused_socket, refused_request,
 *   shed_socket; the gauges `svc_memory_budget_bytes`, `svc_memory_held_bytes`,
 *   `svc_memory_resident_growth_bytes` and `svc_memory_level` (0 normal, 1 pressure, 2 over).
 * - gauges read at scrape time: in-flight GraphQL and REST calls and their ceilings, relay
 *   sockets (and their ceiling), subscriptions and paused directions, resource-fence bindings
 *   held, tenant buckets tracked.
 * - process series (process_metrics.ts), added by the proxy; a worker deployment's scrape merges
 *   every worker's text (aggregate.ts).
 */
import { DEFAULTS } from '../config/defaults.ts';

/** What the registry reads at scrape time (the proxy's stats and ceilings). */
export interface MetricGauges {
  graphqlInFlight: number;
  graphqlMaxConcurrent: number;
  restInFlight: number;
  restMaxConcurrent: number;
  relaySockets: number;
  relaySubscriptions: number;
  /**
   * Relay directions paused by flow control now (docs/operations.md "Slow and vanished peers on the
   * relay").
   */
  relayPausedLegs: number;
  /** Upstream legs open, and timers the relay holds (both zero when idle: a leak shows). */
  relayUpstreamSockets: number;
  relayTimers: number;
  /** Browser frames the relay had to hold since it started (a counter; optional for old hosts). */
  relayHeldFramesTotal?: number;
  resourceBindings: number;
  tenantsTracked: number;
  /**
   * 1 while shared tenant limits fell back to per-process ones (docs/operations.md "Limits across
   * processes"), else 0.
   */
  sharedLimitsFallback?: number;
  /** The relay's socket ceiling (WS_MAX_SOCKETS); the series is left out when absent. */
  relayMaxSockets?: number;
  /** The memory accountant (docs/operations.md "Memory"): budget, bytes counted, RSS growth. */
  memoryBudgetBytes?: number;
  memoryHeldBytes?: number;
  memoryResidentGrowthBytes?: number;
  /** 0 normal, 1 past the pressure threshold, 2 past the budget. */
  memoryLevel?: number;
}

/** The registry. */
export interface Metrics {
  /** One answer of a claimed route. */
  request(route: string, status: number): void;
  /** A GraphQL refusal: its code and the check-order row (e.g. '6', '11.5'). */
  refusal(code: string, step: string): void;
  /** One upstream call of `route` that took `ms` milliseconds. */
  upstream(route: string, ms: number): void;
  /** A gate admission decided from the cache, by a backend lookup, or refused by the budget. */
  gate(result: 'hit' | 'miss' | 'over_budget'): void;
  /** One next frame relayed to a browser. */
  frame(): void;
  /** One shared-limits backend call (`fn`: svc_tenant_take, svc_socket_open, svc_limits_sync). */
  sharedLimitsCall(fn: string): void;
  /** Shared tenant limits fell back to per-process ones (the backend did not answer). */
  sharedLimitsFallback(): void;
  /**
   * One relay socket closed by flow control: the leg that did not drain, and why
   * (docs/operations.md "Slow and vanished peers on the relay").
   */
  stallClose(leg: 'browser' | 'upstream', cause: 'timeout' | 'cap'): void;
  /** One action of the memory accountant (pressure, refused_socket, refused_request, shed_socket). */
  memoryAction(action: string): void;
  /** The exposition text, gauges read now. */
  render(gauges: MetricGauges): string;
}

/** Label values are code-chosen words and numbers; escaped anyway per the format. */
function label(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function counterLines(name: string, help: string, counts: Map<string, number>): string[] {
  const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} counter`];
  for (const [labels, n] of counts) lines.push(labels ? `${name}{${labels}} ${n}` : `${name} ${n}`);
  return lines;
}

interface Histogram {
  buckets: number[];
  sum: number;
  count: number;
}

function histogramLines(name: string, help: string, series: Map<string, Histogram>): string[] {
  const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} histogram`];
  for (const [labels, h] of series) {
    DEFAULTS.metricsBucketsMs.forEach((ms, i) => {
      lines.push(`${name}_bucket{${labels},le="${ms / 1000}"} ${h.buckets[i]}`);
    });
    lines.push(`${name}_bucket{${labels},le="+Inf"} ${h.count}`);
    lines.push(`${name}_sum{${labels}} ${h.sum / 1000}`);
    lines.push(`${name}_count{${labels}} ${h.count}`);
  }
  return lines;
}

function gaugeLines(name: string, help: string, value: number): string[] {
  return [`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, `${name} ${value}`];
}

function requestLabels(requests: Map<string, Map<number, number>>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [route, byStatus] of requests) {
    for (const [status, n] of byStatus) out.set(`route="${label(route)}",status="${status}"`, n);
  }
  return out;
}

/** A new, empty registry. */
export function createMetrics(): Metrics {
  /** route -> status -> count: no label string is built per request. */
  const requests = new Map<string, Map<number, number>>();
  const refusals = new Map<string, number>();
  const upstream = new Map<string, Histogram>();
  const gate = new Map<string, number>();
  let frames = 0;
  const sharedCalls = new Map<string, number>();
  let sharedFallbacks = 0;
  const stalls = new Map<string, number>();
  const memoryActions = new Map<string, number>();
  const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  return {
    request(route, status) {
      let byStatus = requests.get(route);
      if (!byStatus) requests.set(route, byStatus = new Map());
      byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    },
    refusal(code, step) {
      bump(refusals, `code="${label(code)}",step="${label(step)}"`);
    },
    upstream(route, ms) {
      const key = `route="${label(route)}"`;
      let h = upstream.get(key);
      if (!h) {
        upstream.set(
          key,
          h = { buckets: DEFAULTS.metricsBucketsMs.map(() => 0), sum: 0, count: 0 },
        );
      }
      DEFAULTS.metricsBucketsMs.forEach((le, i) => {
        if (ms <= le) h!.buckets[i]++;
      });
      h.sum += ms;
      h.count++;
    },
    gate(result) {
      bump(gate, `result="${result}"`);
    },
    frame() {
      frames++;
    },
    sharedLimitsCall(fn) {
      bump(sharedCalls, `fn="${label(fn)}"`);
    },
    sharedLimitsFallback() {
      sharedFallbacks++;
    },
    stallClose(leg, cause) {
      bump(stalls, `leg="${label(leg)}",cause="${label(cause)}"`);
    },
    memoryAction(action) {
      bump(memoryActions, `action="${label(action)}"`);
    },
    render(g) {
      return [
        ...counterLines(
          'svc_requests_total',
          'Answers of claimed routes.',
          requestLabels(requests),
        ),
        ...counterLines('svc_refusals_total', 'GraphQL refusals by code and check step.', refusals),
        ...histogramLines(
          'svc_upstream_duration_seconds',
          'Upstream calls of forwarded requests, answer read whole.',
          upstream,
        ),
        ...counterLines(
          'svc_gate_lookups_total',
          'Gate admissions: cache hit, backend miss, refused by the miss budget.',
          gate,
        ),
        ...counterLines(
          'svc_relay_frames_total',
          'Next frames relayed to browsers.',
          new Map([['', frames]]),
        ),
        ...counterLines(
          'svc_shared_limits_calls_total',
          'Shared tenant-limit calls to the backend by function.',
          sharedCalls,
        ),
        ...counterLines(
          'svc_shared_limits_fallbacks_total',
          'Times shared tenant limits fell back to per-process ones.',
          new Map([['', sharedFallbacks]]),
        ),
        ...gaugeLines(
          'svc_shared_limits_fallback',
          '1 while tenant limits are per-process for want of a backend answer.',
          g.sharedLimitsFallback ?? 0,
        ),
        ...counterLines(
          'svc_relay_stall_closes_total',
          'Relay sockets closed 1013 by flow control: the leg that did not drain, and why.',
          stalls,
        ),
        ...counterLines(
          'svc_memory_actions_total',
          'Memory budget actions: pressure entered, sockets and requests refused, sockets shed.',
          memoryActions,
        ),
        ...gaugeLines('svc_memory_budget_bytes', 'The memory budget.', g.memoryBudgetBytes ?? 0),
        ...gaugeLines(
          'svc_memory_held_bytes',
          'Bytes the gateway holds, as the memory accountant counts them.',
          g.memoryHeldBytes ?? 0,
        ),
        ...gaugeLines(
          'svc_memory_resident_growth_bytes',
          'Resident memory above its first reading.',
          g.memoryResidentGrowthBytes ?? 0,
        ),
        ...gaugeLines(
          'svc_memory_level',
          'Memory level: 0 normal, 1 past the pressure threshold, 2 past the budget.',
          g.memoryLevel ?? 0,
        ),
        ...gaugeLines('svc_graphql_in_flight', 'GraphQL calls in flight.', g.graphqlInFlight),
        ...gaugeLines('svc_graphql_max_concurrent', 'Their ceiling.', g.graphqlMaxConcurrent),
        ...gaugeLines('svc_rest_in_flight', 'REST upload calls in flight.', g.restInFlight),
        ...gaugeLines('svc_rest_max_concurrent', 'Their ceiling.', g.restMaxConcurrent),
        ...gaugeLines('svc_relay_sockets', 'Relay sockets open.', g.relaySockets),
        ...(g.relayMaxSockets === undefined
          ? []
          : gaugeLines('svc_relay_max_sockets', 'Their ceiling.', g.relayMaxSockets)),
        ...gaugeLines(
          'svc_relay_subscriptions',
          'Subscriptions relayed now.',
          g.relaySubscriptions,
        ),
        ...gaugeLines(
          'svc_relay_upstream_sockets',
          'Upstream legs of relay sockets open.',
          g.relayUpstreamSockets,
        ),
        ...gaugeLines('svc_relay_timers', 'Timers the relay holds.', g.relayTimers),
        ...counterLines(
          'svc_relay_held_frames_total',
          'Browser frames the relay held (before the upstream opened or behind a pending check).',
          new Map([['', g.relayHeldFramesTotal ?? 0]]),
        ),
        ...gaugeLines(
          'svc_relay_paused',
          'Relay directions paused by flow control (a leg not read while the other drains).',
          g.relayPausedLegs,
        ),
        ...gaugeLines('svc_resource_bindings', 'Resource-fence bindings held.', g.resourceBindings),
        ...gaugeLines('svc_tenants_tracked', 'Tenant buckets tracked.', g.tenantsTracked),
      ].join('\n') + '\n';
    },
  };
}
