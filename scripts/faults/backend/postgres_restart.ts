/**
 * PostgreSQL restarted (fast shutdown, then started again on its port) while traffic flows:
 * SPEC "Authentication" 2 (gate) and "Resource fence" (shared store: batched writes, left alone
 * 5 s when unresponsive, writes only for ids a caller names).
 *
 * Owner A's session is cached and A's answers bound bot 1's four flows in memory. A names one
 * of them before the restart (written), one while the database is down (its write fails), one
 * right after it is back (the store is still left alone), and a fourth later. Fresh sessions of
 * owner B arrive all along: 503 ProxyAuthUnavailable while the database is down, admitted once it
 * is back ('fresh ok'). After the 5 s, A names all four again; each must then be in
 * svc_resource_owner bound to bot 1 (the one written before the restart survived it: nothing
 * lost) and each written to the database exactly once (nothing written twice).
 */
import { WORLD_IDS } from '../../sandbox/mod.ts';
import type { Fault } from '../fault.ts';
import { type DriveContext, runBackendFault, sleep } from './run.ts';
import { BOT_QUERY, count, FLOW_QUERY, graphql } from './traffic.ts';
import { queryOnce } from './world.ts';

const NAME = 'backend: PostgreSQL restarted under traffic';
const REFUSED = '503 ProxyAuthUnavailable';
const FRESH_OK = 'fresh ok';
const NAMED_OK = 'named ok';
const BIND = 'svc_resource_bind';
/** Binds a bot's two flow groups and its two flows without a group (sandbox answers). */
const LEARN_QUERY =
  'query L($botID: BotID!) { bot(id: $botID) { flowGroups { id } flowsWithoutGroup { id } } }';
/** The database stays down at least this long (ms). */
const MIN_DOWN_MS = 2_000;
/**
 * And at most this long per restart (ms), well inside the gate's 30 s cache of the ordinary
 * caller (a longer run restarts it several times).
 */
const MAX_DOWN_MS = 10_000;
/** A fresh session arrives this often (ms). */
const ARRIVAL_MS = 300;
/** SPEC: an unresponsive store is left alone 5 s; plus a batch interval and a margin (ms). */
const LEFT_ALONE_MS = 5_000 + 750;
/** After the database is back, fresh sessions must be admitted within this (ms). */
const RECOVERY_MS = 15_000;

async function name(ctx: DriveContext, jwt: string, flowID: string): Promise<void> {
  const label = await graphql(ctx.gateway.url, jwt, FLOW_QUERY, { botID: WORLD_IDS.bot1, flowID });
  count(ctx.answers, label === 'ok' ? NAMED_OK : label);
}

/** Fresh sessions of B every ARRIVAL_MS until `stop` resolves; true once one was admitted. */
function freshSessions(ctx: DriveContext, stop: Promise<void>) {
  let admittedAt = 0;
  let stopped = false;
  stop.then(() => stopped = true);
  const loop = (async () => {
    const callers: Promise<void>[] = [];
    while (!stopped) {
      callers.push((async () => {
        const jwt = await ctx.world.token(ctx.world.users.b);
        const label = await graphql(ctx.gateway.url, jwt, BOT_QUERY, { botID: WORLD_IDS.bot3 });
        if (label === 'ok') admittedAt = Date.now();
        count(ctx.answers, label === 'ok' ? FRESH_OK : label);
      })());
      await sleep(ARRIVAL_MS);
    }
    await Promise.all(callers);
  })();
  return { loop, admittedSince: (t: number) => admittedAt > t };
}

/**
 * One restart: down for `downMs` with fresh sessions arriving, `during` named while down,
 * `after` named as soon as it is back; returns once a fresh session was admitted again.
 */
async function restartOnce(
  ctx: DriveContext,
  jwt: string,
  downMs: number,
  named: { during?: string; after?: string },
): Promise<void> {
  const { world } = ctx;
  const done = Promise.withResolvers<void>();
  const fresh = freshSessions(ctx, done.promise);
  await world.cluster.down();
  if (named.during) await name(ctx, jwt, named.during);
  await sleep(downMs);
  await world.cluster.up();
  const upAt = Date.now();
  if (named.after) await name(ctx, jwt, named.after);
  while (!fresh.admittedSince(upAt) && Date.now() < upAt + RECOVERY_MS) await sleep(100);
  if (!fresh.admittedSince(upAt)) ctx.problem('no fresh session admitted after the restart');
  done.resolve();
  await fresh.loop;
}

async function drive(ctx: DriveContext): Promise<void> {
  const { world } = ctx;
  const jwt = await world.token(world.users.a);
  const learned = await graphql(ctx.gateway.url, jwt, LEARN_QUERY, { botID: WORLD_IDS.bot1 });
  if (learned !== 'ok') ctx.problem(`learning bot 1's flows answered ${learned}`);
  const own = [
    'flowGroups.0.id',
    'flowGroups.1.id',
    'flowsWithoutGroup.0.id',
    'flowsWithoutGroup.1.id',
  ]
    .map((path) => world.sandbox.world.resourceId(WORLD_IDS.bot1, path));
  await name(ctx, jwt, own[0]);
  await sleep(750); // its batch is written
  const until = Date.now() + ctx.options.durationMs;
  const downMs = Math.min(MAX_DOWN_MS, Math.max(MIN_DOWN_MS, ctx.options.durationMs / 2));
  let cycle = 0;
  do {
    await ctx.refreshOthers();
    const first = cycle++ === 0;
    await restartOnce(ctx, jwt, downMs, first ? { during: own[1], after: own[2] } : {});
  } while (Date.now() < until);
  await name(ctx, jwt, own[3]);
  await sleep(LEFT_ALONE_MS);
  for (const id of own) await name(ctx, jwt, id);
  await sleep(750);
  await checkRows(ctx, own);
}

/** Every id bound to bot 1 in the table, each written to the database exactly once. */
async function checkRows(ctx: DriveContext, ids: string[]): Promise<void> {
  const { world } = ctx;
  const rows = await queryOnce<{ resource_id: string; bot_id: string }>(
    world,
    'select resource_id, bot_id from public.svc_resource_owner where resource_id = any($1)',
    [ids],
  );
  const binds = world.proxy.calls.filter((c) => c.fn === BIND);
  const written = binds.filter((c) => c.status >= 200 && c.status < 300);
  if (!binds.some((c) => c.status >= 500 && c.body.includes(ids[1]))) {
    ctx.problem('the write named while the database was down never failed (fault not exercised)');
  }
  for (const [i, id] of ids.entries()) {
    const row = rows.find((r) => r.resource_id === id);
    if (row?.bot_id !== WORLD_IDS.bot1) ctx.problem(`id ${i + 1} not stored for bot 1`);
    const times = written.filter((c) => c.body.includes(id)).length;
    if (times !== 1) ctx.problem(`id ${i + 1} written to the database ${times} times`);
  }
}

/** The restart fault. */
export const postgresRestartFault: Fault = {
  name: NAME,
  hosts: ['deno', 'node'],
  run: (host, options) =>
    runBackendFault(
      {
        name: NAME,
        expected: [REFUSED, FRESH_OK, NAMED_OK],
        required: [REFUSED, FRESH_OK, NAMED_OK],
        drive,
      },
      host,
      options,
    ),
};
