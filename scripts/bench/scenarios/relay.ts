/**
 * Scenario 'relay': the WebSocket relay against the upstream socket directly,
 * in one run. Operations per second and latency over one open socket (each
 * operation: subscribe, next, complete) at 1 and 16 in flight, directly to the
 * sandbox and through each host; then memory per idle socket: the gateway
 * process's resident memory with N acknowledged idle sockets open, minus
 * before, over N (each browser socket also holds its upstream leg).
 */
import { residentBytes } from '../proc.ts';
import {
  type BenchContext,
  compare,
  type Comparison,
  type Measurement,
  type Scenario,
  type ScenarioReport,
} from '../scenario.ts';
import { openIdleSockets, runSocketLoad } from '../socket_load.ts';

/** Operations in flight over the one socket. */
export const RELAY_IN_FLIGHT = [1, 16] as const;
/** Idle sockets opened for the memory figure. */
export const IDLE_SOCKETS = 200;

/** Lifts the socket ceilings so the memory figure can open IDLE_SOCKETS at once. */
const RELAY_ENV = {
  WS_MAX_SOCKETS: '100000',
  WS_PRE_AUTH_SOCKETS: '100000',
  TENANT_MAX_SOCKETS: '100000',
};

const QUERY = { query: 'query RelayBench { currentUser { id } }' };

async function run(context: BenchContext): Promise<ScenarioReport> {
  const deno = await context.startGateway({ kind: 'deno', env: RELAY_ENV });
  const node = await context.startGateway({ kind: 'node', env: RELAY_ENV });
  const ws = (url: string) => url.replace(/^http/, 'ws');
  const targets = [
    {
      label: 'direct',
      url: `${ws(context.sandbox.url)}/graphql`,
      initPayload: { authToken: `Bearer ${context.token}` },
      pid: context.sandbox.pid,
    },
    { label: 'deno', url: `${ws(deno.url)}/svc/graphql`, initPayload: {}, pid: deno.pid },
    { label: 'node', url: `${ws(node.url)}/svc/graphql`, initPayload: {}, pid: node.pid },
  ];
  const { durationS, warmupS } = context.settings;
  const measurements: Measurement[] = [];
  const comparisons: Comparison[] = [];
  for (const inFlight of RELAY_IN_FLIGHT) {
    const row: Measurement[] = [];
    for (const t of targets) {
      row.push(await runSocketLoad({ ...t, payload: QUERY, inFlight }, durationS, warmupS));
    }
    measurements.push(...row);
    for (const subject of row.slice(1)) {
      comparisons.push(compare(`${subject.target} relay / direct`, row[0], subject));
    }
  }
  const memory: string[] = [];
  for (const t of targets) {
    const before = await residentBytes(t.pid);
    const close = await openIdleSockets(t.url, t.initPayload, IDLE_SOCKETS);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const after = await residentBytes(t.pid);
    await close();
    const perSocket = (after - before) / IDLE_SOCKETS / 1024;
    memory.push(
      `memory per idle socket, ${t.label}: ${perSocket.toFixed(1)} KiB (${IDLE_SOCKETS} sockets)`,
    );
  }
  return {
    name: 'relay',
    title: 'The WebSocket relay against the upstream socket directly (both hosts)',
    notes: [
      'operation: subscribe { currentUser { id } } over one open graphql-ws socket; next + complete back',
      "'requests' are operations (3 relayed frames each); 'conc' is operations in flight on the socket",
      ...memory,
    ],
    measurements,
    comparisons,
  };
}

/** See the module comment. */
export const relayScenario: Scenario = {
  name: 'relay',
  title: 'relay operations/s and latency vs direct, memory per idle socket',
  run,
};
