/**
 * Memory per idle relayed socket on the Deno runtime, split (docs/benchmarks.md "Where the Deno
 * host's idle socket goes"): the Deno host and the Deno floors (floors/null_relay.ts, `pass` and `plain`, the
 * host's two legs) against the flood upstream, each a fresh process per target and round,
 * interleaved. Per target and round it prints the resident memory per socket as the relay scenario
 * reads it (idle_sockets.ts: 1000 acknowledged idle sockets after 100, no collection forced) and,
 * from a second fresh process with an inspector, the resident memory and the JavaScript heap used
 * per socket, each read after a forced collection (V8's `Runtime.getHeapUsage`); the rest
 * (resident - heap) is native memory plus heap pages the collection left committed.
 *
 * Not part of `deno task bench`: `deno run --allow-all scripts/bench/idle_deno.ts [--rounds 3]
 * [--targets host,pass,plain] [--tree <label>=<dir>] [--v8 <flags>]`. Check that no other benchmark or test run shares the machine
 * first.
 */
import { parseArgs } from 'node:util';
import { type ChildProcess, denoRun, startChildProcess } from '../host_process.ts';
import { BENCH_GATEWAY_ENV } from './context.ts';
import { inspectorUrl } from './inspector.ts';
import { closeAll, openIdleSockets } from './idle_sockets.ts';
import { residentBytes } from './proc.ts';
import { IDLE_SOCKETS, RELAY_ENV } from './scenarios/relay.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const wsUrl = (url: string) => url.replace(/^http/, 'ws');

/** Sends one inspector command and resolves with its result. */
function inspectorCall(url: string, method: string): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.onopen = () => ws.send(JSON.stringify({ id: 1, method }));
    ws.onmessage = (event) => {
      const answer = JSON.parse(String(event.data));
      if (answer.id !== 1) return;
      ws.close();
      resolve(answer.result ?? {});
    };
    ws.onerror = () => reject(new Error(`inspector ${method} failed`));
  });
}

/** Heap used (bytes) after a full collection. */
async function heapUsed(inspector: string): Promise<number> {
  await inspectorCall(inspector, 'HeapProfiler.collectGarbage');
  return (await inspectorCall(inspector, 'Runtime.getHeapUsage')).usedSize;
}

/** Starts `script` with an inspector; resolves with the process, its ws URL and inspector. */
async function start(
  script: string,
  env: Record<string, string>,
  ready: RegExp,
  path: string,
  inspect: boolean,
) {
  // a script of another tree runs with that tree's config
  const [deno, run, ...rest] = denoRun(script).filter((a) => a !== '--quiet').map((a) =>
    script.startsWith('/') && a.startsWith('--config=')
      ? `--config=${script.split('/hosts/')[0]}/deno.json`
      : a
  ).map((a) => script.startsWith('/') && a.endsWith(script) ? script : a);
  const child: ChildProcess = await startChildProcess({
    command: inspect ? [deno, run, '--inspect=127.0.0.1:0', ...rest] : [deno, run, ...rest],
    env: { HOST: '127.0.0.1', PORT: '0', ...env },
    ready,
  });
  let inspector = inspectorUrl(child.errors);
  for (let i = 0; i < 40 && inspector === null && inspect; i++) {
    await sleep(50);
    inspector = inspectorUrl(child.errors);
  }
  if (inspect && !inspector) throw new Error(`${script}: no inspector address`);
  return { child, inspector, url: `${wsUrl(child.url)}${path}` };
}

/**
 * One target's figures, bytes a socket: `resident` as the bench takes it (no collection forced:
 * a process started without an inspector), or with `inspector` the heap used and the resident
 * memory, each read after a forced collection.
 */
async function measure(
  url: string,
  initPayload: Record<string, unknown>,
  pid: number,
  insp?: string,
) {
  const opened: WebSocket[] = [];
  const read = async () => {
    const heap = insp ? await heapUsed(insp) : 0;
    return { rss: await residentBytes(pid), heap };
  };
  try {
    opened.push(...await openIdleSockets(url, initPayload, IDLE_SOCKETS.warm));
    await sleep(IDLE_SOCKETS.settleMs);
    const before = await read();
    opened.push(...await openIdleSockets(url, initPayload, IDLE_SOCKETS.count));
    await sleep(IDLE_SOCKETS.settleMs);
    const after = await read();
    const per = (a: number, b: number) => (b - a) / IDLE_SOCKETS.count;
    return { rss: per(before.rss, after.rss), heap: per(before.heap, after.heap) };
  } finally {
    await closeAll(opened);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      rounds: { type: 'string', default: '3' },
      targets: { type: 'string', default: 'host,pass,plain' },
      // another tree's Deno host beside this one's: `label=/path/to/tree` (target `label`)
      tree: { type: 'string', multiple: true, default: [] },
      // V8 flags (DENO_V8_FLAGS) for the targets named `<target>+v8`
      v8: { type: 'string', default: '' },
    },
  });
  const flood = await startChildProcess({
    command: denoRun('scripts/bench/flood_upstream.ts'),
    env: { PORT: '0', HOST: '127.0.0.1' },
    ready: /^(http:\/\/\S+)$/,
  });
  const upstream = `${wsUrl(flood.url)}/graphql`;
  const kib = (n: number) => (n / 1024).toFixed(1);
  const trees = new Map(values.tree.map((t) => t.split('=') as [string, string]));
  /** A fresh process of `target` (with an inspector or not) and its figures. */
  const once = async (named: string, inspect: boolean) => {
    const target = named.replace(/\+v8$/, '');
    const v8: Record<string, string> = named.endsWith('+v8') ? { DENO_V8_FLAGS: values.v8 } : {};
    const tree = trees.get(target);
    const gateway = target === 'host' || tree !== undefined;
    const s = gateway
      ? await start(
        tree ? `${tree}/hosts/deno/serve.ts` : 'hosts/deno/serve.ts',
        {
          SVC_TOKEN: 'bench-token-not-a-secret-0123456789',
          ...BENCH_GATEWAY_ENV,
          ...RELAY_ENV,
          SVC_API_BASE: flood.url,
          ...v8,
        },
        /listening on (http:\/\/\S+)/,
        '/svc/graphql',
        inspect,
      )
      : await start(
        'scripts/bench/floors/null_relay.ts',
        { UPSTREAM: upstream, MODE: target, LEG: 'ws', ...v8 },
        /^null relay listening on (\S+)$/,
        '/graphql',
        inspect,
      );
    try {
      const init = gateway ? {} : { authToken: 'unchecked' };
      return await measure(s.url, init, s.child.pid, s.inspector ?? undefined);
    } finally {
      await s.child.stop();
    }
  };
  try {
    for (let round = 1; round <= Number(values.rounds); round++) {
      for (const target of values.targets.split(',')) {
        const resident = await once(target, false);
        const split = await once(target, true);
        console.log(
          `r${round} ${target}: resident ${kib(resident.rss)} KiB a socket; after collections: ` +
            `resident ${kib(split.rss)}, heap ${kib(split.heap)}, ` +
            `the rest ${kib(split.rss - split.heap)} KiB`,
        );
      }
    }
  } finally {
    await flood.stop();
  }
}

if (import.meta.main) await main();
