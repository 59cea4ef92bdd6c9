/**
 * The resource fence's shared store under a backend fault: SPEC "Resource fence" ("read via
 * svc_resource_owner_lookup (2 s deadline); written via svc_resource_bind in 250 ms batches ...
 * an unresponsive store is left alone 5 s").
 *
 * Owner A's session is cached; A first learns bot 1's and bot 2's flow groups (answers bind
 * them in memory). Then, with both store functions failing, A names ids: fresh ones (the store
 * would be asked: bound forwards them, 'fenced ok'), bot 1's groups under bot 1 (writes queued:
 * 'named ok') and a bot 2 group under bot 1 (memory still refuses it: 403 ResourceNotAllowed).
 * Checked at the proxy: after any store call failed, no store call (read or write) arrives for
 * the next 5 s. After healing and the 5 s, naming bot 1's groups again writes them: each ends in
 * svc_resource_owner bound to bot 1, each written successfully once.
 */
import { WORLD_IDS } from '../../sandbox/mod.ts';
import type { Fault } from '../fault.ts';
import type { Behaviour, ProxyCall } from './fault_proxy.ts';
import { type DriveContext, runBackendFault, sleep } from './run.ts';
import { count, FLOW_QUERY, graphql } from './traffic.ts';

/** Binds a bot's two flow groups and its two flows without a group (sandbox answers). */
const LEARN_QUERY =
  'query L($botID: BotID!) { bot(id: $botID) { flowGroups { id } flowsWithoutGroup { id } } }';

const LOOKUP = 'svc_resource_owner_lookup';
const BIND = 'svc_resource_bind';
/** SPEC: an unresponsive store is left alone this long (ms). */
const LEFT_ALONE_MS = 5_000;
/** A call may arrive this long after a failure (it was already on its way), ms. */
const ARRIVAL_GRACE_MS = 150;
/** SPEC: the store's deadline (ms). */
const STORE_DEADLINE_MS = 2_000;
/** Gap between two requests of the fault's caller (ms). */
const GAP_MS = 400;
/** The fault phase lasts at least this long (ms): past the 2 s lookup deadline. */
const MIN_PHASE_MS = 3_000;

const FENCED_OK = 'fenced ok';
const NAMED_OK = 'named ok';
const FOREIGN = '403 ResourceNotAllowed';

function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** The store calls that arrived within LEFT_ALONE_MS of an earlier failed store call. */
export function callsWhileLeftAlone(calls: readonly ProxyCall[]): ProxyCall[] {
  const store = calls.filter((call) => call.fn === LOOKUP || call.fn === BIND);
  const failures = store
    .filter((call) => call.endedAt !== null && (call.status < 200 || call.status >= 300))
    .map((call) => call.endedAt!);
  return store.filter((call) =>
    failures.some((at) => call.at > at + ARRIVAL_GRACE_MS && call.at < at + LEFT_ALONE_MS)
  );
}

async function flow(ctx: DriveContext, jwt: string, flowID: string): Promise<string> {
  return await graphql(ctx.gateway.url, jwt, FLOW_QUERY, { botID: WORLD_IDS.bot1, flowID });
}

/** What the two store functions do during the fault. */
interface StoreBehaviour {
  lookup: Behaviour;
  bind: Behaviour;
}

async function drive(ctx: DriveContext, behaviour: StoreBehaviour): Promise<void> {
  const { world } = ctx;
  const jwt = await world.token(world.users.a);
  const learned = (bot: string) =>
    ['flowGroups.0.id', 'flowGroups.1.id', 'flowsWithoutGroup.0.id', 'flowsWithoutGroup.1.id']
      .map((path) => world.sandbox.world.resourceId(bot, path));
  for (const bot of [WORLD_IDS.bot1, WORLD_IDS.bot2]) {
    const label = await graphql(ctx.gateway.url, jwt, LEARN_QUERY, { botID: bot });
    if (label !== 'ok') ctx.problem(`learning ${bot}'s flows answered ${label}`);
  }
  const own = learned(WORLD_IDS.bot1);
  const [foreign] = learned(WORLD_IDS.bot2);
  world.proxy.set(LOOKUP, behaviour.lookup);
  world.proxy.set(BIND, behaviour.bind);
  const phaseMs = Math.max(MIN_PHASE_MS, ctx.options.durationMs);
  const until = Date.now() + phaseMs;
  const callers: Promise<void>[] = [];
  // Bot 1's ids named more than one batch interval apart (one write batch each), a fresh id
  // between them (a store read), bot 2's id under bot 1 once; then fresh ids.
  const plan = [own[0], null, own[1], foreign, own[2], own[3]];
  for (let turn = 0; Date.now() < until || turn < plan.length; turn++) {
    const id = plan[turn];
    callers.push((async () => {
      const label = await flow(ctx, jwt, id ?? randomId());
      count(ctx.answers, label === 'ok' ? (id ? NAMED_OK : FENCED_OK) : label);
    })());
    await sleep(GAP_MS);
  }
  await Promise.all(callers);
  // Still failing: a write queued before the first failure must not go out after it.
  await sleep(STORE_DEADLINE_MS + 500);
  for (const call of callsWhileLeftAlone(world.proxy.calls)) {
    ctx.problem(`${call.fn} called while the store was left alone`);
  }
  world.proxy.clear();
  await rewrite(ctx, jwt, own);
}

/** After healing and the 5 s: naming the ids again writes them, once each. */
async function rewrite(ctx: DriveContext, jwt: string, ids: string[]): Promise<void> {
  const { world } = ctx;
  await sleep(LEFT_ALONE_MS + 500);
  for (const id of ids) {
    const label = await flow(ctx, jwt, id);
    if (label !== 'ok') ctx.problem(`naming ${id} after healing answered ${label}`);
  }
  await sleep(1_000);
  const rows = await world.backend.seed.query<{ resource_id: string; bot_id: string }>(
    'select resource_id, bot_id from public.svc_resource_owner where resource_id = any($1)',
    [ids],
  );
  for (const id of ids) {
    const row = rows.rows.find((r) => r.resource_id === id);
    if (row?.bot_id !== WORLD_IDS.bot1) ctx.problem(`${id} not stored for bot 1 after healing`);
  }
  const written = world.proxy.calls.filter((c) =>
    c.fn === BIND && c.behaviour === 'pass' && c.status >= 200 && c.status < 300
  );
  for (const id of ids) {
    const times = written.filter((c) => c.body.includes(id)).length;
    if (times !== 1) ctx.problem(`${id} written to the database ${times} times`);
  }
}

function storeFault(how: string, behaviour: StoreBehaviour): Fault {
  const name = `backend: resource store ${how}`;
  return {
    name,
    hosts: ['deno', 'node'],
    run: (host, options) =>
      runBackendFault(
        {
          name,
          expected: [FENCED_OK, NAMED_OK, FOREIGN],
          required: [FENCED_OK, NAMED_OK, FOREIGN],
          drive: (ctx) => drive(ctx, behaviour),
        },
        host,
        options,
      ),
  };
}

function both(behaviour: Behaviour): StoreBehaviour {
  return { lookup: behaviour, bind: behaviour };
}

/** The store's faults: connection cut, past its 2 s deadline, 500, a non-array answer. */
export const storeFaults: Fault[] = [
  storeFault('connections cut (unreachable mid-call)', both({ kind: 'reset' })),
  storeFault('calls time out (backend stalls)', both({ kind: 'stall' })),
  storeFault('answers 500', both({ kind: 'status', status: 500 })),
  // svc_resource_bind answers nothing (204): any 2xx is a write done, so only reads mis-shape.
  storeFault('lookups answer a string, not rows', {
    lookup: { kind: 'body', body: '"no rows here"' },
    bind: { kind: 'pass' },
  }),
];
