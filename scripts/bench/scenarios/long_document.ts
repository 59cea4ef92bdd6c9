/**
 * Scenario 'longdoc' (docs/benchmarks.md "Refusing a long document"; goal: a 2 MiB document past
 * the token limit is refused for at most 0.1x the CPU of parsing it whole, on both hosts). The
 * document of ../long_document.ts (a body 1 KiB under 2 MiB, plain fields) sent to three gateways
 * of each host:
 *
 * - limit: the default graphqlMaxTokens (5000), refusing it 400 TooManyTokens;
 * - limit, budget off: the same with MEMORY_BUDGET_BYTES=off (the accountant's own share: a
 *   request reserving memoryLargeRequestBytes or more is followed by a full collection, at most
 *   every memoryCollectEveryMs, docs/operations.md "Memory");
 * - limit off: GRAPHQL_MAX_TOKENS=1000000000 (and the budget of 'limit'), which parses it whole and refuses it 400
 *   TooManyRootFields (what refusing it cost when the token limit was checked on the tree).
 *
 * First, memory: {@link BURSTS} bursts of {@link BURST} requests at once (graphqlMaxConcurrent) to
 * each fresh gateway, and its resident memory after them over its start. Then CPU, in
 * {@link ROUNDS} interleaved rounds per host: graphql-js parsing the document whole in a process
 * of the host's runtime (parse_whole.mjs, the baseline), then each gateway's CPU time over
 * requests sent one after another (every answer read, so none is left in flight), per request.
 */
import type { HostKind } from '../../host_process.ts';
import { longDocument, parseWhole } from '../long_document.ts';
import { cpuTimeMs, residentBytes } from '../proc.ts';
import { range } from '../rounds.ts';
import type { BenchContext, Range, Scenario, ScenarioReport } from '../scenario.ts';

/** Interleaved CPU rounds. */
export const ROUNDS = 3;
/** Requests at once in a memory burst (graphqlMaxConcurrent), and bursts per gateway. */
export const BURST = 32;
export const BURSTS = 3;
/** Whole parses per baseline run. */
const PARSES = 10;

const GATEWAYS = {
  limit: { env: { MEMORY_BUDGET_BYTES: '268435456' }, requests: 100 },
  'limit, budget off': { env: { MEMORY_BUDGET_BYTES: 'off' }, requests: 100 },
  'limit off': {
    env: { MEMORY_BUDGET_BYTES: '268435456', GRAPHQL_MAX_TOKENS: '1000000000' },
    requests: 10,
  },
} as const;

type Label = keyof typeof GATEWAYS;

/** Sizes of one host's measurement (the bench test makes them small). */
export interface HostPlan {
  document: { query: string; body: string };
  parses: number;
  /** Requests per CPU run, by gateway. */
  requests: Record<Label, number>;
  burst: number;
  bursts: number;
}

/** One host's CPU round: the baseline, and each gateway's CPU per request. */
export interface HostRound {
  wholeParseMs: number;
  tokens: number;
  cpuMsPerRequest: Record<Label, number>;
  statuses: Record<Label, Record<string, number>>;
}

/** The refusal code of an answer's envelope, else '-'. */
function codeOf(text: string): string {
  try {
    return JSON.parse(text).errors?.[0]?.extensions?.code ?? '-';
  } catch {
    return '-';
  }
}

/** POSTs `body` `n` times at `concurrency` at once; answers counted by status and code. */
async function send(url: string, body: string, n: number, concurrency: number) {
  const statuses: Record<string, number> = {};
  let left = n;
  const worker = async () => {
    while (left-- > 0) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      const key = `${res.status} ${codeOf(await res.text())}`;
      statuses[key] = (statuses[key] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  return statuses;
}

/**
 * Starts the two gateways of `kind`, measures their memory bursts, and returns them with a
 * function measuring one CPU round on them.
 */
export async function startHost(context: BenchContext, kind: HostKind, plan: HostPlan) {
  const gateways: { label: Label; url: string; pid: number }[] = [];
  const memory: Record<string, { growthMiB: number; statuses: Record<string, number> }> = {};
  for (const [label, { env }] of Object.entries(GATEWAYS) as [Label, { env: object }][]) {
    const gateway = await context.startGateway({ kind, env: env as Record<string, string> });
    const g = { label, url: `${gateway.url}/svc/graphql`, pid: gateway.pid };
    gateways.push(g);
    const start = await residentBytes(g.pid);
    const statuses = await send(g.url, plan.document.body, plan.burst * plan.bursts, plan.burst);
    memory[label] = { growthMiB: (await residentBytes(g.pid) - start) / 2 ** 20, statuses };
  }
  const round = async (): Promise<HostRound> => {
    const whole = await parseWhole(kind, plan.document.query, plan.parses);
    const cpu = {} as Record<Label, number>;
    const statuses = {} as Record<Label, Record<string, number>>;
    for (const g of gateways) {
      const n = plan.requests[g.label];
      const before = await cpuTimeMs(g.pid);
      statuses[g.label] = await send(g.url, plan.document.body, n, 1);
      cpu[g.label] = (await cpuTimeMs(g.pid) - before) / n;
    }
    return {
      wholeParseMs: whole.cpuMsPerParse,
      tokens: whole.tokens,
      cpuMsPerRequest: cpu,
      statuses,
    };
  };
  return { memory, round };
}

/** The CPU figures of one host over its rounds. */
export function hostRanges(kind: HostKind, rounds: HostRound[]): Range[] {
  const ratio = (label: Label) => rounds.map((r) => r.cpuMsPerRequest[label] / r.wholeParseMs);
  return [
    range(kind, 'whole parse cpu ms', rounds.map((r) => r.wholeParseMs)),
    range(kind, 'refused cpu ms (limit)', rounds.map((r) => r.cpuMsPerRequest.limit)),
    range(kind, 'refused (limit) cpu x whole parse', ratio('limit')),
    range(kind, 'refused (limit, budget off) cpu x whole parse', ratio('limit, budget off')),
    range(kind, 'refused (limit off) cpu x whole parse', ratio('limit off')),
  ];
}

/** The default plan of `deno task bench`. */
export function defaultPlan(): HostPlan {
  return {
    document: longDocument(),
    parses: PARSES,
    requests: {
      limit: GATEWAYS.limit.requests,
      'limit, budget off': GATEWAYS['limit, budget off'].requests,
      'limit off': GATEWAYS['limit off'].requests,
    },
    burst: BURST,
    bursts: BURSTS,
  };
}

async function run(context: BenchContext): Promise<ScenarioReport> {
  const plan = defaultPlan();
  const all = {
    deno: await startHost(context, 'deno', plan),
    node: await startHost(context, 'node', plan),
  };
  const rounds: Record<HostKind, HostRound[]> = { deno: [], node: [] };
  for (let i = 0; i < ROUNDS; i++) {
    for (const kind of ['deno', 'node'] as const) rounds[kind].push(await all[kind].round());
  }
  const notes = [
    'goal: refused (limit) <= 0.1x whole parse on both hosts',
    `document: ${plan.document.body.length} bytes of body, ${
      rounds.deno[0].tokens
    } tokens of plain fields`,
    `cpu: ${ROUNDS} interleaved rounds; whole parse: parse_whole.mjs (${PARSES} parses) in the host's runtime; ` +
    `gateways: requests one after another, ${JSON.stringify(plan.requests)}`,
    'limit: graphqlMaxTokens 5000 (400 TooManyTokens), MEMORY_BUDGET_BYTES=268435456; limit, budget off: MEMORY_BUDGET_BYTES=off; ' +
    'limit off: GRAPHQL_MAX_TOKENS=1000000000 (parsed whole, 400 TooManyRootFields)',
  ];
  for (const kind of ['deno', 'node'] as const) {
    for (const [label, m] of Object.entries(all[kind].memory)) {
      notes.push(
        `memory: ${kind} ${label}: ${BURSTS} bursts of ${BURST} at once, resident +${
          m.growthMiB.toFixed(1)
        } MiB over its start (answers ${JSON.stringify(m.statuses)})`,
      );
    }
    const statuses = rounds[kind].map((r) => JSON.stringify(r.statuses));
    notes.push(`cpu runs' answers, ${kind}: ${[...new Set(statuses)].join(' ')}`);
  }
  return {
    name: 'longdoc',
    title: 'A 2 MiB document past the token limit: CPU to refuse it x parsing it whole',
    notes,
    measurements: [],
    comparisons: [],
    ranges: [...hostRanges('deno', rounds.deno), ...hostRanges('node', rounds.node)],
  };
}

/** See the module comment. */
export const longDocumentScenario: Scenario = {
  name: 'longdoc',
  title: 'a 2 MiB document past the token limit: CPU to refuse it x parsing it whole, both hosts',
  run,
};
