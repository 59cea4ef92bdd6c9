/**
 * Every svc_ function a signed-in user may execute, called directly through the backend's REST
 * interface with that user's session token (the anon key is public, so this is around the
 * gateway): none can leave the database and the upstream disagreeing, none reaches another
 * user's rows, and none reaches the upstream at all (docs/backend.md "Who may call each
 * function"; SPEC "Database hint mapping": bot_still_upstream). The functions are enumerated
 * from the database, so a function granted to `authenticated` later without a case here fails.
 */
import assert from 'node:assert/strict';
import { databaseRefusal } from '../../src/backend/hints.ts';
import { startPostgres } from '../fixtures/db/postgres.ts';
import { type Account, type AuthSetup, withAuth } from './helpers.ts';

/** The accounts and rows every case starts from. */
interface World {
  /** Owner of workspace A with bots a0 and a1 (created through the gateway). */
  a: Account;
  /** Owner of workspace B with bot b0. */
  b: Account;
  /** A plain member of workspace A without any grant. */
  m: Account;
  a0: string;
  a1: string;
  b0: string;
  /** A draft post of bot a0. */
  post: string;
}

type Case = (s: AuthSetup, w: World) => Promise<void>;

/** A direct call: status, body, hint. */
async function call(s: AuthSetup, fn: string, args: Record<string, unknown>, who: Account) {
  const reply = await s.backend.rpc(fn, args, who.jwt);
  const hint = (reply.body as { hint?: string } | null)?.hint;
  return { ...reply, hint };
}

/** Asserts a direct call was refused with `status` and `hint` (null: no hint, the grant said no). */
async function refused(
  s: AuthSetup,
  fn: string,
  args: Record<string, unknown>,
  who: Account,
  status: number,
  hint: string | null,
) {
  const reply = await call(s, fn, args, who);
  assert.equal(reply.status, status, `${fn}: ${JSON.stringify(reply.body)}`);
  assert.equal(reply.hint ?? null, hint, fn);
}

/** Bot rows with an upstream id: upstream id → name. */
async function botRows(s: AuthSetup): Promise<Map<string, string>> {
  const rows = await s.sql(
    `select upstream_bot_id, name from public.svc_bots where upstream_bot_id is not null`,
  );
  return new Map(rows.map((r) => [r.upstream_bot_id, r.name]));
}

/** Every bot row names an upstream bot with its title, and the world's bots are all still there. */
async function assertAgree(s: AuthSetup, w: World): Promise<void> {
  const rows = await botRows(s);
  for (const id of [w.a0, w.a1, w.b0]) assert.ok(rows.has(id), `row of ${id}`);
  for (const [id, name] of rows) {
    assert.equal(s.sandbox.world.bot(id)?.title, name, `upstream and row of ${id}`);
  }
}

async function myBots(s: AuthSetup, who: Account): Promise<string[]> {
  const reply = await call(s, 'svc_my_bot_ids', {}, who);
  assert.equal(reply.status, 200);
  return (reply.body as string[]).sort();
}

const CASES: Record<string, Case> = {
  'svc_my_bot_ids()': async (s, w) => {
    assert.deepEqual(await myBots(s, w.a), [w.a0, w.a1].sort());
    assert.deepEqual(await myBots(s, w.b), [w.b0]);
    assert.deepEqual(await myBots(s, w.m), [], 'a member sees granted bots only');
  },
  'svc_provision(text)': async (s, w) => {
    const before = await s.sql('select count(*)::int as n from public.svc_bots');
    const ready = await call(s, 'svc_provision', { p_name: 'x' }, w.a);
    assert.equal((ready.body as { state: string }).state, 'ready');
    const member = await call(s, 'svc_provision', { p_name: 'x' }, w.m);
    assert.equal((member.body as { state: string }).state, 'ready');
    assert.deepEqual(await s.sql('select count(*)::int as n from public.svc_bots'), before);
    // a new account reserves: a reservation, not a bot, which only the service role attaches
    const c = await s.signUp('c@example.test');
    const reserved = await call(s, 'svc_provision', { p_name: 'Mine' }, c);
    const body = reserved.body as { state: string; reservation: string; token: string };
    assert.equal(body.state, 'reserved');
    assert.deepEqual(await myBots(s, c), []);
    await refused(
      s,
      'svc_bot_attach',
      {
        p_reservation: body.reservation,
        p_token: body.token,
        p_upstream_bot_id: w.a0,
      },
      c,
      403,
      null,
    );
  },
  'svc_bot_reserve(text)': async (s, w) => {
    const reserved = await call(s, 'svc_bot_reserve', { p_name: 'Extra' }, w.b);
    assert.equal(reserved.status, 200, JSON.stringify(reserved.body));
    const row = await s.sql(
      `select b.workspace_id, b.upstream_bot_id from public.svc_bots b where b.id = $1`,
      [(reserved.body as { reservation: string }).reservation],
    );
    const [home] = await s.sql(
      'select workspace_id from public.svc_bots where upstream_bot_id = $1',
      [w.b0],
    );
    assert.deepEqual(row, [{ workspace_id: home.workspace_id, upstream_bot_id: null }]);
    assert.deepEqual(await myBots(s, w.b), [w.b0], 'a reservation is not a bot');
    await refused(s, 'svc_bot_reserve', { p_name: 'x' }, w.m, 403, 'not_admin');
  },
  'svc_bot_rename(text,text)': async (s, w) => {
    const checked = await call(s, 'svc_bot_rename', { p_bot_id: w.a0, p_name: 'Hijacked' }, w.a);
    assert.equal(checked.status, 200);
    assert.equal((await botRows(s)).get(w.a0), 'Bot a0', 'the check writes nothing');
    await refused(s, 'svc_bot_rename', { p_bot_id: w.a0, p_name: 'x' }, w.b, 404, 'bot_not_found');
    await refused(s, 'svc_bot_rename', { p_bot_id: w.a0, p_name: 'x' }, w.m, 403, 'not_admin');
  },
  'svc_bot_delete_check(text)': async (s, w) => {
    const checked = await call(s, 'svc_bot_delete_check', { p_bot_id: w.a0 }, w.a);
    assert.deepEqual(checked.body, {
      id: w.a0,
      name: 'Bot a0',
      lastOpenable: false,
      upstreamDeleted: false,
    });
    await refused(s, 'svc_bot_delete_check', { p_bot_id: w.b0 }, w.a, 404, 'bot_not_found');
  },
  'svc_bot_forget(text)': async (s, w) => {
    const early = await call(s, 'svc_bot_forget', { p_bot_id: w.a1 }, w.a);
    assert.equal(early.status, 409);
    assert.equal(early.hint, 'bot_still_upstream');
    const answer = databaseRefusal({
      status: early.status,
      data: null,
      error: early.body as never,
    });
    assert.equal(answer.code, 'BotStillUpstream');
    assert.ok((await botRows(s)).has(w.a1), 'the row stays while the upstream has the bot');
    await refused(s, 'svc_bot_forget', { p_bot_id: w.b0 }, w.a, 404, 'bot_not_found');
    await refused(s, 'svc_bot_forget', { p_bot_id: w.a1 }, w.m, 403, 'not_admin');
    // the service-role step that would let it through is not the user's
    await refused(s, 'svc_bot_upstream_deleted', { p_bot_id: w.a1 }, w.a, 403, null);
  },
  'svc_recovery_authorize(text)': async (s, w) => {
    const links = s.front.calls.length;
    await refused(s, 'svc_recovery_authorize', { p_email: w.b.email }, w.a, 404, 'not_member');
    await refused(s, 'svc_recovery_authorize', { p_email: w.m.email }, w.b, 404, 'not_member');
    await refused(s, 'svc_recovery_authorize', { p_email: w.a.email }, w.m, 403, 'rank');
    const ok = await call(s, 'svc_recovery_authorize', { p_email: w.m.email }, w.a);
    assert.equal(ok.status, 200, 'the same answer as through the route');
    assert.equal(s.front.calls.length, links, 'no link is made without the service role');
  },
  'svc_recovery_caller_check()': async (s, w) => {
    await refused(s, 'svc_recovery_caller_check', {}, w.m, 403, 'rank');
    const ok = await call(s, 'svc_recovery_caller_check', {}, w.a);
    assert.ok(ok.status === 200 || ok.status === 204, `an owner passes (${ok.status})`);
  },
  'svc_posts_list(text)': async (s, w) => {
    await refused(s, 'svc_posts_list', { p_bot_id: w.a0 }, w.b, 403, 'bot_not_allowed');
    const own = await call(s, 'svc_posts_list', { p_bot_id: w.a0 }, w.a);
    assert.deepEqual((own.body as { id: string }[]).map((p) => p.id), [w.post]);
    const theirs = await call(s, 'svc_posts_list', { p_bot_id: w.b0 }, w.b);
    assert.deepEqual(theirs.body, []);
  },
  'svc_post_create(text,jsonb)': async (s, w) => {
    const post = {
      kind: 'story',
      media: [{ type: 'image', url: 'https://cdn.example.test/a.png' }],
    };
    await refused(
      s,
      'svc_post_create',
      { p_bot_id: w.a0, p_post: post },
      w.b,
      403,
      'bot_not_allowed',
    );
    await refused(
      s,
      'svc_post_create',
      { p_bot_id: w.a0, p_post: post },
      w.m,
      403,
      'bot_not_allowed',
    );
    const rows = await s.sql('select count(*)::int as n from public.svc_posts');
    assert.deepEqual(rows, [{ n: 1 }]);
  },
  'svc_post_update(text,text,jsonb)': async (s, w) => {
    const patch = { caption: 'taken over' };
    await refused(
      s,
      'svc_post_update',
      {
        p_bot_id: w.a0,
        p_id: w.post,
        p_patch: patch,
      },
      w.b,
      403,
      'bot_not_allowed',
    );
    await refused(
      s,
      'svc_post_update',
      {
        p_bot_id: w.b0,
        p_id: w.post,
        p_patch: patch,
      },
      w.b,
      404,
      'post_not_found',
    );
    const [row] = await s.sql('select caption from public.svc_posts where id = $1', [w.post]);
    assert.equal(row.caption, null);
  },
  'svc_post_delete(text,text)': async (s, w) => {
    await refused(
      s,
      'svc_post_delete',
      { p_bot_id: w.a0, p_id: w.post },
      w.b,
      403,
      'bot_not_allowed',
    );
    await refused(
      s,
      'svc_post_delete',
      { p_bot_id: w.b0, p_id: w.post },
      w.b,
      404,
      'post_not_found',
    );
    assert.equal((await s.sql('select id from public.svc_posts')).length, 1);
  },
};

/** The owners, their bots (through the gateway), the member and a post. */
async function setUp(s: AuthSetup): Promise<World> {
  const a = await s.signUp('a@example.test');
  const a0 = (await s.api('POST', '/provision', a, { name: 'Bot a0' })).json.created.id;
  const a1 = (await s.api('POST', '/bots', a, { name: 'Bot a1' })).json.bot.id;
  const b = await s.signUp('b@example.test');
  const b0 = (await s.api('POST', '/provision', b, { name: 'Bot b0' })).json.created.id;
  const m = await s.signUp('m@example.test');
  const [{ workspace_id }] = await s.sql(
    'select workspace_id from public.svc_bots where upstream_bot_id = $1',
    [a0],
  );
  await s.backend.seed.addMember(workspace_id, m.id, 'member');
  const post = await call(s, 'svc_post_create', {
    p_bot_id: a0,
    p_post: { kind: 'story', media: [{ type: 'image', url: 'https://cdn.example.test/a.png' }] },
  }, a);
  assert.equal(post.status, 200, JSON.stringify(post.body));
  return { a, b, m, a0, a1, b0, post: (post.body as { id: string }).id };
}

Deno.test('svc_ functions a signed-in user may call directly, around the gateway', async (t) => {
  const cluster = await startPostgres();
  try {
    await withAuth(cluster, 'deno', async (s) => {
      const w = await setUp(s);
      await t.step('every function executable by authenticated has a case here', async () => {
        const rows = await s.sql(
          `select p.oid::regprocedure::text as fn from pg_proc p
            where p.pronamespace = 'public'::regnamespace and p.proname like 'svc\\_%'
              and has_function_privilege('authenticated', p.oid, 'EXECUTE') order by 1`,
        );
        assert.deepEqual(rows.map((r) => r.fn), Object.keys(CASES).sort());
      });
      for (const [fn, run] of Object.entries(CASES)) {
        await t.step(`${fn}: no disagreement with the upstream, no other user's rows`, async () => {
          const from = s.sandbox.received.length;
          await run(s, w);
          assert.equal(s.sandbox.received.length, from, 'nothing reached the upstream');
          await assertAgree(s, w);
        });
      }
    });
  } finally {
    await cluster.stop();
  }
});
