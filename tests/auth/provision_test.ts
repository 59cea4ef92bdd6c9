/**
 * POST /svc/auth/provision and POST /svc/auth/bots on both hosts, on the real PostgreSQL with
 * the PostgREST-compatible fixture and the sandbox upstream: first bot, idempotence, the race
 * (ten concurrent provisions: one workspace, one bot), two users apart, every upstream answer
 * row, caps, the hint mapping, bodies, and no secret in any answer. Methods, paths and mounting:
 * routing_test.ts.
 */
import assert from 'node:assert/strict';
import { SANDBOX_TOKEN, upstreamError, WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { assertNothingReached } from '../helpers/assertions.ts';
import {
  assertCode,
  type AuthSetup,
  type AuthStep,
  authStepsOnEachHost,
  upstreamOps,
} from './helpers.ts';

const BOT_QUERY = 'query BotTitle($botID: BotID!) { bot(id: $botID) { id title } }';

/** In sub-steps that share the user and the bot the second makes. */
async function firstProvision(s: AuthSetup, t: Deno.TestContext) {
  const user = await s.signUp('first@example.test');
  // deno-lint-ignore no-explicit-any
  let first!: any, bot!: any, from!: number;
  await t.step(
    'before its first provision the gate refuses the token: AuthTenantForbidden',
    async () => {
      // the gate sees this token before its first provision: no bot yet, and it caches that
      const early = await fetch(`${s.gateway.url}/svc/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${user.jwt}` },
        body: JSON.stringify({ query: BOT_QUERY, variables: { botID: WORLD_IDS.bot1 } }),
      });
      assertCode(
        { status: early.status, headers: early.headers, text: '', json: await early.json() },
        403,
        'AuthTenantForbidden',
      );
    },
  );
  await t.step(
    'the first provision opens an owned workspace and creates the bot upstream',
    async () => {
      from = s.sandbox.received.length;
      first = await s.api('POST', '/provision', user, { name: 'Support' });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.json.workspace.role, 'owner');
      assert.equal(first.json.bots.length, 1);
      assert.equal(first.json.pending, false);
      bot = first.json.created;
      assert.deepEqual(first.json.bots, [bot]);
      assert.equal(bot.name, 'Support');
      assert.equal(s.sandbox.world.bot(bot.id)?.title, 'Support');
      assert.equal(s.sandbox.world.bot(bot.id)?.workspaceId, WORLD_IDS.workspaceA);
      assert.deepEqual(upstreamOps(s.sandbox, from), ['SvcProvisionBot']);
    },
  );
  await t.step('provision again: the same workspace, no new bot, nothing upstream', async () => {
    const again = await s.api('POST', '/provision', user);
    assert.equal(again.status, 200);
    assert.equal(again.json.workspace.id, first.json.workspace.id);
    assert.deepEqual(again.json.bots, [bot]);
    assert.equal(again.json.created, null);
    assert.deepEqual(upstreamOps(s.sandbox, from), ['SvcProvisionBot']);
  });
  await t.step('the gate opens the new bot for this user at once', async () => {
    const gql = await fetch(`${s.gateway.url}/svc/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${user.jwt}` },
      body: JSON.stringify({ query: BOT_QUERY, variables: { botID: bot.id } }),
    });
    const answer = await gql.json();
    assert.equal(gql.status, 200, JSON.stringify(answer));
    assert.equal(answer.data.bot.id, bot.id);
  });
}

async function concurrentProvisions(s: AuthSetup) {
  const user = await s.signUp('race@example.test');
  const from = s.sandbox.received.length;
  s.sandbox.switches.delays = [{ ms: 150, match: { operationName: 'SvcProvisionBot' } }];
  const replies = await Promise.all(
    Array.from({ length: 10 }, () => s.api('POST', '/provision', user)),
  );
  s.clearSwitches();
  for (const r of replies) assert.equal(r.status, 200, r.text);
  const workspaces = new Set(replies.map((r) => r.json.workspace.id));
  assert.equal(workspaces.size, 1);
  const botIds = new Set(
    replies.flatMap((r) => r.json.bots.map((b: { id: string }) => b.id)),
  );
  assert.equal(
    botIds.size,
    1,
    replies.map((r) => r.text).join('\n') + upstreamOps(s.sandbox, from).join(','),
  );
  assert.equal(replies.filter((r) => r.json.created !== null).length, 1);
  assert.deepEqual(upstreamOps(s.sandbox, from), ['SvcProvisionBot']);
  const rows = await s.sql(
    `select count(*)::int as n, count(b.upstream_bot_id)::int as attached
       from public.svc_bots b join public.svc_members m on m.workspace_id = b.workspace_id
      where m.user_id = $1`,
    [user.id],
  );
  assert.deepEqual(rows[0], { n: 1, attached: 1 });
  const members = await s.sql(
    'select role from public.svc_members where user_id = $1',
    [user.id],
  );
  assert.deepEqual(members, [{ role: 'owner' }]);
}

async function usersApart(s: AuthSetup) {
  const a = await s.signUp('apart-a@example.test');
  const b = await s.signUp('apart-b@example.test');
  const pa = await s.api('POST', '/provision', a);
  const pb = await s.api('POST', '/provision', b);
  assert.notEqual(pa.json.workspace.id, pb.json.workspace.id);
  const aBot = pa.json.created.id;
  assert.ok(!pb.text.includes(aBot));
  assert.ok(!pb.text.includes(pa.json.workspace.id));
  await assertNothingReached(s.sandbox, async () => {
    assertCode(
      await s.api('PATCH', `/bots/${aBot}`, b, { name: 'Mine' }),
      404,
      'BotNotFound',
    );
    assertCode(await s.api('DELETE', `/bots/${aBot}`, b), 404, 'BotNotFound');
  });
  const created = await s.api('POST', '/bots', b, { name: 'B two' });
  assert.equal(created.status, 201);
  const again = await s.api('POST', '/provision', a);
  assert.ok(!again.text.includes(created.json.bot.id));
  assert.deepEqual(again.json.bots.map((x: { id: string }) => x.id), [aBot]);
}

async function postBots(s: AuthSetup) {
  const user = await s.signUp('bots@example.test');
  await s.api('POST', '/provision', user);
  await assertNothingReached(s.sandbox, async () => {
    assertCode(await s.api('POST', '/bots', user, {}), 422, 'BadBotName');
    assertCode(await s.api('POST', '/bots', user, { name: '   ' }), 422, 'BadBotName');
    assertCode(await s.api('POST', '/bots', user, { name: 7 }), 422, 'BadBotName');
    assertCode(await s.api('POST', '/bots', user, 'not json'), 400, 'InvalidRequest');
    assertCode(await s.api('POST', '/bots', user, [1]), 400, 'InvalidRequest');
    assertCode(await s.api('POST', '/provision', user, { name: '' }), 422, 'BadBotName');
    const long = await s.api('POST', '/bots', user, { name: 'x'.repeat(101) });
    assertCode(long, 422, 'BadBotName');
    const huge = await s.api('POST', '/bots', user, { name: 'x'.repeat(2 * 1024 * 1024) });
    assertCode(huge, 413, 'RequestTooLarge');
    assertCode(
      await s.api('POST', '/bots', null, { name: 'x' }),
      401,
      'AuthSessionRequired',
    );
  });
  const made = await s.api('POST', '/bots', user, { name: '  Second  ' });
  assert.equal(made.status, 201, made.text);
  assert.equal(made.json.bot.name, 'Second');
  assert.equal(s.sandbox.world.bot(made.json.bot.id)?.title, 'Second');
  const listed = await s.api('POST', '/provision', user);
  assert.equal(listed.json.bots.length, 2);
}

/** One sub-step per upstream answer (each on a new user), then a user with no workspace. */
async function upstreamAnswers(s: AuthSetup, t: Deno.TestContext) {
  const rows: [string, () => void, number, string, RegExp?][] = [
    ['unreachable', () => (s.sandbox.switches.drop = {}), 502, 'ProvisionUnreachable'],
    [
      'TooManyBotsInWorkspace',
      () => (s.sandbox.switches.errors = {
        errors: upstreamError('TooManyBotsInWorkspace'),
      }),
      409,
      'WorkspaceFull',
    ],
    [
      'WorkspaceDoesNotExist',
      () => (s.sandbox.switches.errors = {
        errors: upstreamError('WorkspaceDoesNotExist'),
      }),
      500,
      'ProxyAuthMisconfigured',
      new RegExp(WORLD_IDS.workspaceA),
    ],
    [
      'NotEnoughPermissions',
      () => (s.sandbox.switches.errors = { errors: upstreamError('NotEnoughPermissions') }),
      500,
      'ProxyAuthMisconfigured',
      new RegExp(WORLD_IDS.workspaceA),
    ],
    [
      'HTTP 503',
      () => (s.sandbox.switches.status = { status: 503 }),
      502,
      'ProvisionRefused',
      /503/,
    ],
    [
      'an unknown error',
      () => (s.sandbox.switches.errors = { errors: upstreamError('Weird') }),
      502,
      'ProvisionRefused',
    ],
  ];
  let n = 0;
  for (const [answer, flip, status, code, message] of rows) {
    await t.step(`${answer}: ${status} ${code}, the reservation released`, async () => {
      const user = await s.signUp(`create-${n++}@example.test`);
      flip();
      const logged = s.gateway.lines.length;
      const reply = await s.api('POST', '/provision', user);
      s.clearSwitches();
      const text = assertCode(reply, status, code);
      if (message) assert.match(text, message);
      const reservations = await s.sql(
        `select count(*)::int as n from public.svc_bots b
         join public.svc_members m on m.workspace_id = b.workspace_id
        where m.user_id = $1`,
        [user.id],
      );
      assert.equal(reservations[0].n, 0, 'the reservation was released');
      if (code === 'ProvisionUnreachable') {
        await s.sandbox.waitFor(() => s.gateway.lines.length > logged, 'the log line');
        const lines = s.gateway.lines.slice(logged);
        assert.equal(lines.length, 1, lines.join('\n'));
        assert.match(lines[0], /SVC_API_BASE/);
        assert.ok(!lines[0].includes(SANDBOX_TOKEN));
      }
    });
  }
  await t.step('POST bots for a user with no workspace: 404 BotWorkspaceMissing', async () => {
    const made = await s.api('POST', '/bots', await s.signUp('nows@example.test'), {
      name: 'x',
    });
    assertCode(made, 404, 'BotWorkspaceMissing');
  });
}

async function caps(s: AuthSetup) {
  const user = await s.signUp('caps@example.test');
  await s.api('POST', '/provision', user);
  await s.api('POST', '/bots', user, { name: 'two' });
  await s.sql('update public.svc_bot_caps set workspace_bot_cap = 2');
  try {
    await assertNothingReached(s.sandbox, async () => {
      const reply = await s.api('POST', '/bots', user, { name: 'three' });
      assertCode(reply, 409, 'BotLimitReached');
    });
  } finally {
    await s.sql('update public.svc_bot_caps set workspace_bot_cap = 10');
  }
  const [{ n }] = await s.sql('select count(*)::int as n from public.svc_bots');
  await s.sql('update public.svc_bot_caps set deployment_bot_cap = $1', [n]);
  try {
    await assertNothingReached(s.sandbox, async () => {
      assertCode(
        await s.api('POST', '/bots', user, { name: 'three' }),
        409,
        'BotLimitReached',
      );
      const fresh = await s.signUp('caps-new@example.test');
      assertCode(await s.api('POST', '/provision', fresh), 409, 'BotLimitReached');
    });
  } finally {
    await s.sql('update public.svc_bot_caps set deployment_bot_cap = 1000');
  }
}

async function failedAttach(s: AuthSetup) {
  const user = await s.signUp('attach@example.test');
  const bots = s.sandbox.world.bots.length;
  s.backend.rest.switches.override = (fn) =>
    fn === 'svc_bot_attach'
      ? Response.json({ code: 'XX000', hint: null, message: 'down', details: null }, {
        status: 500,
      })
      : undefined;
  const from = s.sandbox.received.length;
  const failed = await s.api('POST', '/provision', user);
  s.backend.rest.switches.override = null;
  assertCode(failed, 503, 'ProxyAuthUnavailable');
  assert.deepEqual(upstreamOps(s.sandbox, from), ['SvcProvisionBot', 'SvcDeleteBot']);
  assert.equal(s.sandbox.world.bots.length, bots, 'the upstream bot was deleted again');
  const rows = await s.sql(
    `select count(*)::int as n from public.svc_bots b
     join public.svc_members m on m.workspace_id = b.workspace_id where m.user_id = $1`,
    [user.id],
  );
  assert.equal(rows[0].n, 0, 'the reservation was released');
  const again = await s.api('POST', '/provision', user);
  assert.equal(again.status, 200, again.text);
  assert.equal(again.json.pending, false);
  assert.equal(again.json.bots.length, 1);
}

/** Sub-steps on one owner and one member, with nothing upstream. */
async function hintTable(s: AuthSetup, t: Deno.TestContext) {
  const owner = await s.signUp('hint-owner@example.test');
  const p = await s.api('POST', '/provision', owner);
  const member = await s.signUp('hint-member@example.test');
  await s.backend.seed.addMember(p.json.workspace.id, member.id, 'member');
  await assertNothingReached(s.sandbox, async () => {
    await t.step('a member: BotAdminRequired for a new bot; provision lists none', async () => {
      assertCode(
        await s.api('POST', '/bots', member, { name: 'x' }),
        403,
        'BotAdminRequired',
      );
      const mp = await s.api('POST', '/provision', member);
      assert.equal(mp.status, 200);
      assert.deepEqual(mp.json.bots, []);
      assert.equal(mp.json.workspace.role, 'member');
    });
    await t.step('an owner of two workspaces: BotWorkspaceAmbiguous', async () => {
      const other = await s.backend.seed.createWorkspace('Other', owner.id);
      assertCode(await s.api('POST', '/provision', owner), 409, 'BotWorkspaceAmbiguous');
      await s.sql('delete from public.svc_workspaces where id = $1', [other]);
    });
    await t.step(
      'an unknown database answer: BotRequestRefused, its detail not shown',
      async () => {
        s.backend.rest.switches.override = (fn) =>
          fn === 'svc_provision'
            ? Response.json({ code: 'PT418', hint: 'odd', message: 'secret detail' }, {
              status: 418,
            })
            : undefined;
        const odd = await s.api('POST', '/provision', owner);
        assert.equal(assertCode(odd, 418, 'BotRequestRefused'), 'That is not allowed');
        s.backend.rest.switches.override = null;
      },
    );
    await t.step('the database failing: ProxyAuthUnavailable', async () => {
      s.backend.rest.switches.fail500 = true;
      assertCode(await s.api('POST', '/provision', owner), 503, 'ProxyAuthUnavailable');
      s.backend.rest.switches.fail500 = false;
    });
    await t.step('an expired or foreign session: AuthSessionRequired', async () => {
      const expired = await s.backend.rest.mintUserToken(owner.id, {
        issuer: s.front.issuer,
        expSeconds: -60,
      });
      assertCode(
        await s.api('POST', '/provision', { ...owner, jwt: expired }),
        401,
        'AuthSessionRequired',
      );
      const foreign = await s.backend.rest.mintUserToken(owner.id, {
        issuer: 'https://elsewhere.example/auth/v1',
      });
      assertCode(
        await s.api('POST', '/provision', { ...owner, jwt: foreign }),
        401,
        'AuthSessionRequired',
      );
    });
  });
}

function noSecret(s: AuthSetup) {
  s.assertNoSecretInAnswers();
}

/** The steps in order, on one database, sandbox and gateway per host. */
const STEPS: AuthStep[] = [
  ['provision opens an owned workspace with a first bot, once', firstProvision],
  ['ten concurrent provisions of one user: one workspace, one bot', concurrentProvisions],
  ["two users never see each other's workspace or bots", usersApart],
  ['POST bots adds a bot; bad names and bodies are refused first', postBots],
  ['upstream answers to a create map to the spec rows', upstreamAnswers],
  ['caps: workspace_bot_cap and deployment_bot_cap are BotLimitReached', caps],
  ['an attach that fails deletes the new upstream bot and the reservation', failedAttach],
  ['database answers through the hint table', hintTable],
  ['no token, key or link appears in any answer', noSecret],
];

authStepsOnEachHost('auth provision and bots', STEPS);
