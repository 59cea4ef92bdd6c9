/**
 * Scenario 'overhead': the bench document sent directly to the sandbox (the baseline) and through
 * the gateway on both hosts, each in its own process with the environment `deno task serve`
 * takes (SVC_TOKEN, SVC_API_BASE; gate off, request-time bot fence, resource fence off, no
 * registry), at concurrency 1 and 32. Reports requests per second, latency, the gateway
 * process's CPU per request, and gateway/direct ratios.
 */
import { benchRequest } from '../document.ts';
import {
  type BenchContext,
  compare,
  type Comparison,
  type Measurement,
  type Scenario,
  type ScenarioReport,
  type Target,
} from '../scenario.ts';

/** The concurrencies measured (32 is the default graphqlMaxConcurrent: SPEC "Limits"). */
export const OVERHEAD_CONNECTIONS = [1, 32] as const;

async function run(context: BenchContext): Promise<ScenarioReport> {
  const { operationName, body } = benchRequest();
  const deno = await context.startGateway({ kind: 'deno' });
  const node = await context.startGateway({ kind: 'node' });
  const targets: Target[] = [
    {
      label: 'direct',
      url: `${context.sandbox.url}/graphql?op=${operationName}`,
      headers: { authorization: `Bearer ${context.token}` },
      pid: context.sandbox.pid,
    },
    { label: 'deno', url: `${deno.url}/svc/graphql`, pid: deno.pid },
    { label: 'node', url: `${node.url}/svc/graphql`, pid: node.pid },
  ];
  const measurements: Measurement[] = [];
  const comparisons: Comparison[] = [];
  for (const connections of OVERHEAD_CONNECTIONS) {
    const row: Measurement[] = [];
    for (const target of targets) row.push(await context.measure(target, body, connections));
    measurements.push(...row);
    for (const subject of row.slice(1)) {
      comparisons.push(compare(`${subject.target} host / direct`, row[0], subject));
    }
  }
  return {
    name: 'overhead',
    title: 'The same document directly to the sandbox and through the gateway (both hosts)',
    notes: [
      `document: ${operationName} for bot1 (${body.length} bytes), POST /svc/graphql`,
      'gateways: the default environment (gate off, bot fence request-time, resource fence off, no registry)',
      'cpu: the measured server process (sandbox for direct, the gateway process for deno and node)',
    ],
    measurements,
    comparisons,
  };
}

/** See the module comment. */
export const overheadScenario: Scenario = {
  name: 'overhead',
  title: 'direct vs through the gateway, both hosts, concurrency 1 and 32',
  run,
};
