/**
 * Scenario 'request-memory' (docs/operations.md "Memory"): what large GraphQL bodies make a host
 * hold under the 256 MiB budget (MEMORY_BUDGET_BYTES=268435456). For each host and each of five
 * body shapes of ~2 MiB (wide aliases, plain fields, repeated fragment spreads, a wide `variables`
 * array of empty objects, a batch of 25 entries: SPEC "GraphQL request entry" allows batches up to
 * graphqlMaxBatch), a freshly started gateway gets ROUNDS rounds of CONCURRENT bodies at once
 * (each body's names salted, so no parse is cached): resident memory is read every 50 ms from
 * /proc, its peak growth over the process's start and its growth SETTLE_MS after the last round
 * reported, with every answer's status and whether the process still answers its health route.
 * The goal: peak growth at most the budget, every request answered, the process alive.
 * Then the same for two shapes with BURNERS processes spinning on the cores (the budget's readings
 * and shedding run on the loop they bound); the wide variables with the budget off (the
 * baseline); and HELD.connections POSTs to a JSON route (the publish queue's callback, mounted
 * with a dummy backend: its body is read before any database call) each held open halfway
 * through a declared 1.6 MB body, with the budget and without: resident growth and how many were
 * answered 503 ProxyBusy while held.
 */
import type { BenchContext, Range, Scenario, ScenarioReport } from '../scenario.ts';
import type { HostKind } from '../../host_process.ts';
import { residentBytes } from '../proc.ts';
import { range } from '../rounds.ts';

const MIB = 1024 * 1024;
const BUDGET = 256 * MIB;
const CONCURRENT = 32;
const ROUNDS = 3;
const SETTLE_MS = 3_000;
const BURNERS = 2;
/** Under the 2 MiB GraphQL body ceiling. */
const TARGET_BYTES = 2 * MIB - 4096;

/** `unit(i)` repeated between `head` and `tail` until the text is about `bytes` long. */
function fill(bytes: number, head: string, unit: (i: number) => string, tail: string): string {
  const parts = [head];
  let n = head.length + tail.length;
  for (let i = 0; n < bytes; i++) {
    const u = unit(i);
    parts.push(u);
    n += u.length;
  }
  parts.push(tail);
  return parts.join('');
}

/** The five shapes: a body of about TARGET_BYTES, its names salted with `salt`. */
export const SHAPES: Record<string, (salt: string) => string> = {
  'wide aliases': (salt) =>
    JSON.stringify({
      query: fill(TARGET_BYTES - 20, `query Q${salt} { `, (i) => `a${i}: __typename `, '}'),
    }),
  'plain fields': (salt) =>
    JSON.stringify({
      query: fill(TARGET_BYTES - 20, `query Q${salt} { `, () => '__typename ', '}'),
    }),
  'fragment spreads': (salt) =>
    JSON.stringify({
      query: fill(
        TARGET_BYTES - 20,
        `query Q${salt} { currentUser { `,
        () => '...F ',
        '} } fragment F on User { id }',
      ),
    }),
  'wide variables': (salt) =>
    `{"query":"query Q${salt}($v: [In]) { currentUser { id } }","variables":{"v":[` +
    fill(TARGET_BYTES - 80, '', (i) => (i ? ',{}' : '{}'), '') + ']}}',
  'batch of 25': (salt) =>
    JSON.stringify(
      Array.from({ length: 25 }, (_, k) => ({
        query: fill(
          Math.floor(TARGET_BYTES / 25) - 20,
          `query Q${salt}x${k} { `,
          () => '__typename ',
          '}',
        ),
      })),
    ),
};

/** One shape against one fresh host. */
interface ShapeRun {
  kind: HostKind;
  shape: string;
  busy: boolean;
  budget: string;
  startMiB: number;
  peakGrowthMiB: number;
  afterGrowthMiB: number;
  statuses: Record<string, number>;
  alive: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** POSTs `body` and reads the status (0 when the connection failed). */
async function post(url: string, body: string): Promise<number> {
  try {
    const res = await fetch(`${url}/svc/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    await res.body?.cancel();
    return res.status;
  } catch {
    return 0;
  }
}

async function runShape(
  context: BenchContext,
  kind: HostKind,
  shape: string,
  busy: boolean,
  budget = String(BUDGET),
): Promise<ShapeRun> {
  const gateway = await context.startGateway({
    kind,
    env: { MEMORY_BUDGET_BYTES: budget, METRICS: '1' },
  });
  await sleep(1_000);
  const start = await residentBytes(gateway.pid);
  let peak = start;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, await residentBytes(gateway.pid).catch(() => 0));
      await sleep(50);
    }
  })();
  const statuses: Record<string, number> = {};
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const bodies = Array.from(
        { length: CONCURRENT },
        (_, i) => SHAPES[shape](`r${round}c${i}${crypto.randomUUID().slice(0, 8)}`),
      );
      const got = await Promise.all(bodies.map((body) => post(gateway.url, body)));
      for (const status of got) statuses[status] = (statuses[status] ?? 0) + 1;
    }
    await sleep(SETTLE_MS);
  } finally {
    sampling = false;
    await sampler;
  }
  const after = await residentBytes(gateway.pid).catch(() => 0);
  const health = await fetch(`${gateway.url}/svc/healthz`).then((r) => r.text().then(() => r.ok))
    .catch(() => false);
  await gateway.stop();
  return {
    kind,
    shape,
    busy,
    budget,
    startMiB: start / MIB,
    peakGrowthMiB: (peak - start) / MIB,
    afterGrowthMiB: (after - start) / MIB,
    statuses,
    alive: health,
  };
}

/** Held JSON-route bodies: how many, declared and sent bytes of each. */
const HELD = { connections: 300, declared: 1_600_000, sent: 800_000 } as const;
const PUBLISH_SECRET = 'bench-publishing-secret-0123456789';
/** The publish queue mounted (gate on, a service-role key; no database is asked before a body). */
const QUEUE_ENV = {
  CLIENT_BACKEND_URL: 'http://127.0.0.1:9',
  CLIENT_BACKEND_ANON_KEY: 'bench-anon-key',
  BACKEND_SERVICE_ROLE_KEY: 'bench-service-role-key',
  PUBLISHING_SECRET: PUBLISH_SECRET,
};

/** One held JSON-route run: resident growth with HELD.connections bodies held mid-read. */
interface HeldRun {
  kind: HostKind;
  budget: string;
  peakGrowthMiB: number;
  answered503: number;
  alive: boolean;
}

/** Opens a publish-due POST declaring HELD.declared bytes, sends HELD.sent, keeps it open. */
async function holdBody(url: string): Promise<{ conn: Deno.Conn; answered: Promise<string> }> {
  const { hostname, port } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  const head = [
    'POST /svc/publishing/publish-due HTTP/1.1',
    `host: ${hostname}:${port}`,
    'content-type: application/json',
    `x-svc-publish-key: ${PUBLISH_SECRET}`,
    `content-length: ${HELD.declared}`,
    '',
    '',
  ].join('\r\n');
  const body = '{"id":"' + 'x'.repeat(HELD.sent - 7);
  await conn.write(new TextEncoder().encode(head + body));
  const answered = (async () => {
    const buf = new Uint8Array(256);
    const n = await conn.read(buf).catch(() => null);
    return n ? new TextDecoder().decode(buf.subarray(0, n)).split('\r\n')[0] : '';
  })();
  return { conn, answered };
}

async function runHeld(context: BenchContext, kind: HostKind, budget: string): Promise<HeldRun> {
  const gateway = await context.startGateway({
    kind,
    env: { MEMORY_BUDGET_BYTES: budget, ...QUEUE_ENV },
  });
  await sleep(1_000);
  const start = await residentBytes(gateway.pid);
  let peak = start;
  const held: Awaited<ReturnType<typeof holdBody>>[] = [];
  try {
    for (let i = 0; i < HELD.connections; i++) {
      held.push(await holdBody(gateway.url));
      if (i % 25 === 0) peak = Math.max(peak, await residentBytes(gateway.pid));
    }
    for (let i = 0; i < 20; i++) {
      peak = Math.max(peak, await residentBytes(gateway.pid));
      await sleep(250);
    }
  } finally {
    for (const h of held) h.conn.close();
  }
  const lines = await Promise.all(held.map((h) => h.answered));
  const health = await fetch(`${gateway.url}/svc/healthz`).then((r) => r.text().then(() => true))
    .catch(() => false);
  await gateway.stop();
  return {
    kind,
    budget,
    peakGrowthMiB: (peak - start) / MIB,
    answered503: lines.filter((l) => l.includes(' 503 ')).length,
    alive: health,
  };
}

/** BURNERS processes spinning until stopped. */
function startBurners(): { stop(): Promise<void> } {
  const children = Array.from(
    { length: BURNERS },
    () =>
      new Deno.Command('node', { args: ['-e', 'for(;;){}'], stdout: 'null', stderr: 'null' })
        .spawn(),
  );
  return {
    async stop() {
      for (const child of children) child.kill('SIGKILL');
      await Promise.all(children.map((c) => c.status));
    },
  };
}

async function run(context: BenchContext): Promise<ScenarioReport> {
  const runs: ShapeRun[] = [];
  for (const kind of ['deno', 'node'] as const) {
    for (const shape of Object.keys(SHAPES)) runs.push(await runShape(context, kind, shape, false));
  }
  const burners = startBurners();
  try {
    for (const kind of ['deno', 'node'] as const) {
      for (const shape of ['wide variables', 'wide aliases']) {
        runs.push(await runShape(context, kind, shape, true));
      }
    }
  } finally {
    await burners.stop();
  }
  // the baselines: no budget (MEMORY_BUDGET_BYTES=off)
  for (const kind of ['deno', 'node'] as const) {
    runs.push(await runShape(context, kind, 'wide variables', false, 'off'));
  }
  const held: HeldRun[] = [];
  for (const kind of ['deno', 'node'] as const) {
    for (const budget of [String(BUDGET), 'off']) held.push(await runHeld(context, kind, budget));
  }
  const label = (r: ShapeRun) =>
    `${r.kind} ${r.shape}${r.busy ? ` (${BURNERS} burners)` : ''}${
      r.budget === 'off' ? ' (budget off)' : ''
    }`;
  const ranges: Range[] = runs.flatMap((r) => {
    const subject = label(r);
    return [
      range(subject, 'peak RSS growth MiB', [round(r.peakGrowthMiB)]),
      range(subject, `RSS growth ${SETTLE_MS / 1000} s after MiB`, [round(r.afterGrowthMiB)]),
    ];
  });
  return {
    name: 'request-memory',
    title: `Large bodies under the ${BUDGET / MIB} MiB budget, each host fresh per shape`,
    notes: [
      `goal: peak RSS growth <= ${BUDGET / MIB} MiB over the start, every request answered, alive`,
      `${CONCURRENT} concurrent bodies of ~${
        (TARGET_BYTES / MIB).toFixed(2)
      } MiB, ${ROUNDS} rounds`,
      ...runs.map((r) =>
        `${label(r)}: start ${round(r.startMiB)} MiB, statuses ${JSON.stringify(r.statuses)}, ` +
        `alive ${r.alive}`
      ),
      `held: ${HELD.connections} publish-due bodies declaring ${HELD.declared} bytes, ` +
      `${HELD.sent} sent, held 5 s`,
      ...held.map((h) =>
        `held ${h.kind} (budget ${h.budget}): ${h.answered503} answered 503, alive ${h.alive}`
      ),
    ],
    measurements: [],
    comparisons: [],
    ranges: [
      ...ranges,
      ...held.map((h) =>
        range(
          `${h.kind} held publish-due bodies (budget ${h.budget === 'off' ? 'off' : '256 MiB'})`,
          'peak RSS growth MiB',
          [round(h.peakGrowthMiB)],
        )
      ),
    ],
  };
}

const round = (n: number) => Math.round(n * 10) / 10;

/** See the module comment. */
export const requestMemoryScenario: Scenario = {
  name: 'request-memory',
  title: 'resident memory of 32 concurrent 2 MiB bodies of five shapes under the 256 MiB budget',
  run,
};
