/**
 * The publish scheduler calling back a gateway that is down, slow, or whose database calls fail
 * mid-callback: supabase/migrations/20261124000500_svc_publishing_scheduler.sql (svc_publish_tick
 * claims due posts and calls back through pg_net; svc_posts_reap returns a post claimed over 10
 * minutes ago to scheduled, or to failed after 3 attempts, or when a callback took it but no
 * outcome was recorded) and SPEC "Publish queue".
 *
 * pg_net is not packaged here: the tick runs as pg_cron would run it, with the net.http_post
 * stand-in of tests/publishing (it records the call), and this fault is pg_net's worker: it
 * delivers each recorded call to the gateway, to a closed port when the gateway is down, and
 * gives up after `PG_NET_TIMEOUT_MS` when told to (pg_net's own is 300 s). Ten minutes pass by
 * moving `claimed_at` back 11 minutes. What must hold: a post whose callback never reached the
 * gateway is retried and published once; one that fails three times ends failed; one the
 * gateway took but could not report ends failed (never published twice).
 */
import type { Fault } from '../fault.ts';
import {
  installPgNetStandin,
  type RecordedPost,
  takeRecordedPosts,
} from '../../../tests/publishing/pg_net_standin.ts';
import { type DriveContext, runBackendFault, sleep } from './run.ts';
import { callerFetch, count, labelOf } from './traffic.ts';
import { PUBLISHING_SECRET } from './world.ts';
import { WORLD_IDS } from '../../sandbox/mod.ts';

/** pg_net's worker gives up on a slow gateway after this long here (ms; pg_net: 300 s). */
const PG_NET_TIMEOUT_MS = 1_000;
/** How slow the upstream publish is in the slow faults (ms). */
const SLOW_PUBLISH_MS = 3_000;

/**
 * Pause between two rounds of a longer run (ms): the scheduler ticks each minute, so a soak
 * needs no storm of callbacks (each round is a few).
 */
const ROUND_PAUSE_MS = 1_000;

const REFUSED = 'callback refused';
const TIMED_OUT = 'callback timed out';
const OK = 'callback ok';

/** A post's row as the checks read it. */
interface PostRow {
  status: string;
  attempts: number;
  last_error: string | null;
}

/** What a scheduler fault works with. */
interface Scheduler {
  ctx: DriveContext;
  /** Inserts a due post of bot 1 (its image url carries a tag); its id. */
  due(): Promise<string>;
  /** One pg_cron tick (reap, claim, call back); the calls it recorded. */
  tick(): Promise<RecordedPost[]>;
  /** Ten minutes pass for the posts being published. */
  age(): Promise<void>;
  /** pg_net's worker: delivers `call` (to a closed port when `down`); the answer's label. */
  deliver(call: RecordedPost, how?: { down?: boolean; giveUpMs?: number }): Promise<string>;
  row(id: string): Promise<PostRow>;
  /** Publish calls that reached the upstream for post `id`. */
  publishes(id: string): number;
}

/** A port nothing listens on (bound once, then closed). */
function closedPort(): number {
  const listener = Deno.listen({ hostname: '127.0.0.1', port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

async function scheduler(ctx: DriveContext): Promise<Scheduler> {
  const { seed } = ctx.world.backend;
  await installPgNetStandin(seed);
  const callback = `${ctx.gateway.url}/svc/publishing/publish-due`;
  // the scheduler sends the secret itself (SPEC "Authentication" 5)
  await seed.query('select public.svc_publishing_register($1, $2, null)', [
    callback,
    PUBLISHING_SECRET,
  ]);
  const tags = new Map<string, string>();
  const down = closedPort();
  return {
    ctx,
    async due() {
      const tag = crypto.randomUUID();
      const media = JSON.stringify([{ type: 'image', url: `https://cdn.example.test/${tag}.jpg` }]);
      const result = await seed.query(
        `insert into public.svc_posts (bot_id, kind, media, caption, scheduled_at, status)
         values ($1, 'post', $2::jsonb, 'fault suite', now() - interval '1 minute', 'scheduled')
         returning id`,
        [WORLD_IDS.bot1, media],
      );
      const id = result.rows[0].id as string;
      tags.set(id, tag);
      return id;
    },
    async tick() {
      await seed.query('select public.svc_publish_tick()');
      return await takeRecordedPosts(seed);
    },
    async age() {
      await seed.query(
        `update public.svc_posts set claimed_at = claimed_at - interval '11 minutes'
          where status = 'publishing'`,
      );
    },
    async deliver(call, how = {}) {
      const base = how.down ? `http://127.0.0.1:${down}` : ctx.gateway.url;
      const signal = how.giveUpMs ? AbortSignal.timeout(how.giveUpMs) : undefined;
      try {
        const response = await callerFetch(`${base}${new URL(call.url).pathname}`, {
          method: 'POST',
          headers: call.headers,
          body: JSON.stringify(call.body),
          signal,
        });
        const label = await labelOf(response);
        return label === 'ok' ? OK : `callback ${label}`;
      } catch (error) {
        return (error as Error).name === 'TimeoutError' ? TIMED_OUT : REFUSED;
      }
    },
    async row(id) {
      const result = await seed.query(
        'select status, attempts, last_error from public.svc_posts where id = $1',
        [id],
      );
      return result.rows[0] as PostRow;
    },
    publishes(id) {
      const tag = tags.get(id) ?? '-';
      return ctx.world.sandbox.received.filter((r) =>
        r.search === '?op=SvcInstagramPublish' && (r.bodyText ?? '').includes(tag)
      ).length;
    },
  };
}

/** Compares a post's row and its upstream publishes with what the migration says. */
function expectPost(
  s: Scheduler,
  what: string,
  row: PostRow,
  want: { status: string; attempts: number; error?: string; publishes: number; id: string },
): void {
  const published = s.publishes(want.id);
  const errorOk = want.error === undefined || (row.last_error ?? '').startsWith(want.error);
  if (row.status !== want.status || row.attempts !== want.attempts || !errorOk) {
    s.ctx.problem(`${what}: ${JSON.stringify(row)}, wanted ${JSON.stringify(want)}`);
  }
  if (published !== want.publishes) {
    s.ctx.problem(`${what}: published upstream ${published} times, wanted ${want.publishes}`);
  }
}

/** Delivers every call of a tick, each as `how(id)` says; the labels counted. */
async function deliverAll(
  s: Scheduler,
  calls: RecordedPost[],
  how: (id: string) => { down?: boolean; giveUpMs?: number },
): Promise<void> {
  await Promise.all(calls.map(async (call) => {
    count(s.ctx.answers, await s.deliver(call, how(call.body.id)));
  }));
}

/**
 * Down: post 1's first callback is refused, the reaper returns it, the second is published
 * (attempts 2, once upstream). Post 2's three callbacks are refused: it ends failed after 3.
 */
async function gatewayDown(s: Scheduler): Promise<void> {
  const once = await s.due();
  const always = await s.due();
  await deliverAll(s, await s.tick(), () => ({ down: true }));
  for (let round = 2; round <= 4; round++) {
    await s.age();
    await deliverAll(s, await s.tick(), (id) => ({ down: id === always }));
  }
  expectPost(s, 'retried post', await s.row(once), {
    id: once,
    status: 'published',
    attempts: 2,
    publishes: 1,
  });
  expectPost(s, 'post never delivered', await s.row(always), {
    id: always,
    status: 'failed',
    attempts: 3,
    error: 'No publish outcome after 3 attempts',
    publishes: 0,
  });
}

/**
 * Slow: the upstream publish takes SLOW_PUBLISH_MS. Post 1: pg_net gives up after
 * PG_NET_TIMEOUT_MS, the gateway carries on and records 'published'; the reaper later leaves it.
 * Post 2: the reaper runs while the gateway is still publishing (the callback took the post):
 * it ends failed ('never recorded'), the gateway's late report is refused 409 PostNotClaimed,
 * and later ticks do not publish it again.
 */
async function gatewaySlow(s: Scheduler): Promise<void> {
  const { ctx } = s;
  ctx.world.sandbox.switches.delays = [{
    ms: SLOW_PUBLISH_MS,
    match: { operationName: 'SvcInstagramPublish' },
  }];
  try {
    const patient = await s.due();
    const [first] = await s.tick();
    count(ctx.answers, await s.deliver(first, { giveUpMs: PG_NET_TIMEOUT_MS }));
    await sleep(SLOW_PUBLISH_MS + 1_000);
    await s.age();
    await s.tick();
    expectPost(s, 'post of a slow gateway', await s.row(patient), {
      id: patient,
      status: 'published',
      attempts: 1,
      publishes: 1,
    });
    const late = await s.due();
    const [second] = await s.tick();
    const answered = s.deliver(second);
    await sleep(SLOW_PUBLISH_MS / 2);
    await s.age();
    await s.tick();
    count(ctx.answers, await answered);
    await s.age();
    await deliverAll(s, await s.tick(), () => ({}));
    expectPost(s, 'post reaped while the gateway published', await s.row(late), {
      id: late,
      status: 'failed',
      attempts: 1,
      error: 'The publish outcome was never recorded',
      publishes: 1,
    });
  } finally {
    ctx.world.sandbox.switches.delays = [];
  }
}

/**
 * The callback's database calls fail. svc_post_take stalls past its 5 s deadline: 503
 * ProxyAuthUnavailable, the post is still claimed and untaken, the reaper returns it and the
 * retry publishes it once. svc_post_report is cut after the publish: 503 ProxyAuthUnavailable,
 * the post ends failed ('never recorded') and is not published again.
 */
async function databaseMidCallback(s: Scheduler): Promise<void> {
  const { ctx } = s;
  const { proxy } = ctx.world;
  const stalled = await s.due();
  proxy.set('svc_post_take', { kind: 'stall' });
  await deliverAll(s, await s.tick(), () => ({}));
  proxy.clear();
  await s.age();
  await deliverAll(s, await s.tick(), () => ({}));
  expectPost(s, 'post whose take stalled', await s.row(stalled), {
    id: stalled,
    status: 'published',
    attempts: 2,
    publishes: 1,
  });
  const unreported = await s.due();
  proxy.set('svc_post_report', { kind: 'reset' });
  await deliverAll(s, await s.tick(), () => ({}));
  proxy.clear();
  await s.age();
  await deliverAll(s, await s.tick(), () => ({}));
  expectPost(s, 'post whose report was cut', await s.row(unreported), {
    id: unreported,
    status: 'failed',
    attempts: 1,
    error: 'The publish outcome was never recorded',
    publishes: 1,
  });
}

function schedulerFault(
  name: string,
  labels: string[],
  drive: (s: Scheduler) => Promise<void>,
): Fault {
  return {
    name,
    hosts: ['deno', 'node'],
    run: (host, options) =>
      runBackendFault(
        {
          name,
          expected: labels,
          required: labels,
          async drive(ctx) {
            const until = Date.now() + options.durationMs;
            const s = await scheduler(ctx);
            while (true) {
              await drive(s);
              if (Date.now() >= until) break;
              await sleep(ROUND_PAUSE_MS);
            }
          },
        },
        host,
        options,
      ),
  };
}

/** The scheduler's faults. */
export const schedulerFaults: Fault[] = [
  schedulerFault(
    'backend: scheduler calls back a gateway that is down',
    [REFUSED, OK],
    gatewayDown,
  ),
  schedulerFault(
    'backend: scheduler calls back a gateway that is slow',
    [TIMED_OUT, 'callback 409 PostNotClaimed'],
    gatewaySlow,
  ),
  schedulerFault(
    "backend: the callback's database calls stall or are cut",
    ['callback 503 ProxyAuthUnavailable', OK],
    databaseMidCallback,
  ),
];
