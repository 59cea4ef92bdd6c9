/**
 * The panel's upstream routes over real HTTP on both hosts against the sandbox upstream:
 * overview, health, workspaces/<id>, bots (create, detail, rename, delete and its guards), and
 * the upstream failure answers (SPEC "Admin panel: /svc/admin", admin rows of "Errors").
 * No database here: bots are not recorded (tests/admin/database_test.ts covers that side).
 */
import assert from 'node:assert/strict';
import { SANDBOX_TOKEN, upstreamError, WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { assertNothingReached, assertRefusal, forwarded } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';
import { DEFAULTS } from '../../src/config/defaults.ts';
import { admin, FAST, json, PASSWORD, unlock } from './helpers.ts';
import type {
  AdminBotAnswer,
  AdminBotDeleted,
  AdminBotDetail,
  AdminHealth,
  AdminOverview,
  AdminWorkspaceDetail,
} from '../../src/routes/admin/types.ts';

// the deployment's own workspace is B (one bot): its last bot is never deletable
const ENV = { ADMIN_PASSWORD: PASSWORD, SVC_WORKSPACE_ID: WORLD_IDS.workspaceB };

/** A bot name at the bound (DEFAULTS.botNameMaxChars characters); one more is refused. */
const LONGEST_NAME = 'N'.repeat(DEFAULTS.botNameMaxChars);

Deno.test("the bot-name bound is the sign-up routes' (svc_auth_check_name), 100", async () => {
  const sql = await Deno.readTextFile(
    new URL('../../supabase/migrations/20261123231000_svc_auth.sql', import.meta.url),
  );
  assert.match(
    sql,
    new RegExp(`char_length\\(btrim\\(p_name\\)\\) > ${DEFAULTS.botNameMaxChars}\\b`),
  );
  assert.equal(DEFAULTS.botNameMaxChars, 100);
});

for (const kind of HOSTS) {
  Deno.test(`[${kind}] overview, health, workspace and bot detail`, async () => {
    await withGateway(kind, { env: ENV, options: FAST }, async ({ sandbox, gateway }) => {
      const cookie = await unlock(gateway.url);
      const overview = await json<AdminOverview>(await admin(gateway.url, '/overview', { cookie }));
      assert.deepEqual(overview.account, {
        id: WORLD_IDS.user,
        name: 'Sandbox Owner',
        email: 'owner@sandbox.invalid',
      });
      assert.deepEqual(overview.workspaces.map((w) => [w.id, w.home, w.botsLimit, w.bots.length]), [
        [WORLD_IDS.workspaceA, false, 3, 2],
        [WORLD_IDS.workspaceB, true, 2, 1],
      ]);
      const sent = sandbox.received.at(-1)!;
      assert.equal(sent.headers.authorization, `Bearer ${SANDBOX_TOKEN}`);
      assert.equal(sent.headers.cookie, undefined, 'the admin cookie never travels upstream');
      assert.equal(sent.headers['x-svc-admin'], undefined);

      const health = await json<AdminHealth>(await admin(gateway.url, '/health', { cookie }));
      assert.equal(health.token.works, true);
      assert.equal(health.token.state, 'ok');
      const present = Object.fromEntries(health.settings.map((s) => [s.name, s.present]));
      assert.equal(present.SVC_TOKEN, true);
      assert.equal(present.ADMIN_PASSWORD, true);
      assert.equal(present.SVC_WORKSPACE_ID, true);
      assert.equal(present.CLIENT_BACKEND_URL, false);
      const text = JSON.stringify(health);
      assert.ok(
        !text.includes(SANDBOX_TOKEN) && !text.includes(PASSWORD) && !text.includes(sandbox.url),
      );

      const ws = await json<AdminWorkspaceDetail>(
        await admin(gateway.url, `/workspaces/${WORLD_IDS.workspaceA}`, { cookie }),
      );
      assert.deepEqual(ws.workspace.bots.map((b) => b.id), [WORLD_IDS.bot1, WORLD_IDS.bot2]);
      assert.equal(ws.billing, null, 'billing is allowed to fail (not in the shipped schema)');
      await assertRefusal(
        await admin(gateway.url, '/workspaces/e000000000000000000000ff', { cookie }),
        404,
        'AdminWorkspaceNotFound',
      );

      const bot = await json<AdminBotDetail>(
        await admin(gateway.url, `/bots/${WORLD_IDS.bot3}`, { cookie }),
      );
      assert.equal(bot.bot.id, WORLD_IDS.bot3);
      assert.equal(bot.bot.workspace?.id, WORLD_IDS.workspaceB);
      assert.equal(bot.home, true);
      assert.equal(bot.role?.roleTypeV2, 'Admin');
      await assertRefusal(
        await admin(gateway.url, '/bots/b000000000000000000000ff', { cookie }),
        404,
        'AdminBotNotFound',
      );
    });
  });

  Deno.test(`[${kind}] upstream failures: 502 AdminUpstreamFailed; token refused shows in health`, async () => {
    await withGateway(kind, { env: ENV, options: FAST }, async ({ sandbox, gateway }) => {
      const cookie = await unlock(gateway.url);
      sandbox.switches.status = { status: 500 };
      await assertRefusal(
        await admin(gateway.url, '/overview', { cookie }),
        502,
        'AdminUpstreamFailed',
      );
      await assertRefusal(
        await admin(gateway.url, `/bots/${WORLD_IDS.bot1}`, { cookie }),
        502,
        'AdminUpstreamFailed',
      );
      const failed = await json<AdminHealth>(await admin(gateway.url, '/health', { cookie }));
      assert.deepEqual(failed.token, { works: false, state: 'failed', account: null });
      sandbox.switches.status = null;
      sandbox.switches.errors = { errors: upstreamError('Unauthorized') };
      const refused = await json<AdminHealth>(await admin(gateway.url, '/health', { cookie }));
      assert.deepEqual(refused.token, { works: false, state: 'refused', account: null });
      // an answer shaped like nothing expected: the backstop answers, the log names no secret
      sandbox.switches.errors = {
        errors: [],
        data: { currentUser: { id: 'u', workspaces: [null] } },
        match: { operationName: 'SvcAdminOverview' },
      };
      const broken = await admin(gateway.url, '/overview', { cookie });
      await assertRefusal(broken, 500, 'ProxyInternalError');
      assert.ok(gateway.lines.some((l) => l.includes('admin handler failed')));
      assert.ok(!gateway.lines.join('\n').includes(SANDBOX_TOKEN));
      sandbox.switches.errors = null;
      sandbox.switches.drop = {};
      await assertRefusal(
        await admin(gateway.url, '/overview', { cookie }),
        502,
        'AdminUpstreamFailed',
      );
    });
    await withGateway(
      kind,
      { env: { ...ENV, SVC_TOKEN: '' }, options: FAST },
      async ({ sandbox, gateway }) => {
        const cookie = await unlock(gateway.url);
        await assertNothingReached(sandbox, async () => {
          await assertRefusal(
            await admin(gateway.url, '/overview', { cookie }),
            500,
            'ProxyTokenMissing',
          );
          const health = await json<AdminHealth>(await admin(gateway.url, '/health', { cookie }));
          assert.equal(health.token.state, 'missing');
          assert.ok(health.problems.includes('ProxyTokenMissing'));
        });
      },
    );
  });

  Deno.test(`[${kind}] bots: create, refusals, rename, delete guards`, async () => {
    await withGateway(kind, { env: ENV, options: FAST }, async ({ sandbox, gateway }) => {
      const cookie = await unlock(gateway.url);
      await assertNothingReached(sandbox, async () => {
        await assertRefusal(
          await admin(gateway.url, '/bots', { method: 'POST', cookie, body: { name: 'X' } }),
          422,
          'AdminWorkspaceRequired',
        );
        for (
          const body of [
            { workspaceId: WORLD_IDS.workspaceA },
            {
              workspaceId: WORLD_IDS.workspaceA,
              name: '  ',
            },
            { workspaceId: WORLD_IDS.workspaceA, name: LONGEST_NAME + 'x' },
            'not json',
          ]
        ) {
          const res = await admin(gateway.url, '/bots', { method: 'POST', cookie, body });
          const code = typeof body === 'string' ? 'InvalidRequest' : 'BadBotName';
          await assertRefusal(res, typeof body === 'string' ? 400 : 422, code);
        }
        await assertRefusal(
          await admin(gateway.url, `/bots/${WORLD_IDS.bot1}`, {
            method: 'PATCH',
            cookie,
            body: {},
          }),
          422,
          'BadBotName',
        );
      });
      const created = await json<AdminBotAnswer>(
        await admin(gateway.url, '/bots', {
          method: 'POST',
          cookie,
          body: { workspaceId: WORLD_IDS.workspaceA, name: LONGEST_NAME },
        }),
        201,
      );
      assert.equal(created.title, LONGEST_NAME);
      assert.equal(created.recorded, false);
      assert.equal(sandbox.world.bot(created.id)?.workspaceId, WORLD_IDS.workspaceA);
      await assertRefusal(
        await admin(gateway.url, '/bots', {
          method: 'POST',
          cookie,
          body: { workspaceId: WORLD_IDS.workspaceA, name: 'Fourth' },
        }),
        409,
        'WorkspaceFull',
      );
      await assertRefusal(
        await admin(gateway.url, '/bots', {
          method: 'POST',
          cookie,
          body: { workspaceId: 'e000000000000000000000ff', name: 'N' },
        }),
        403,
        'AdminWorkspaceForbidden',
      );
      sandbox.switches.errors = {
        errors: upstreamError('SomethingElse'),
        match: { operationName: 'SvcAdminCreateBot' },
      };
      await assertRefusal(
        await admin(gateway.url, '/bots', {
          method: 'POST',
          cookie,
          body: { workspaceId: WORLD_IDS.workspaceB, name: 'N' },
        }),
        502,
        'AdminBotCreateFailed',
      );
      sandbox.switches.errors = null;

      const renamed = await json<AdminBotAnswer>(
        await admin(gateway.url, `/bots/${created.id}`, {
          method: 'PATCH',
          cookie,
          body: { name: 'Renamed' },
        }),
      );
      assert.equal(renamed.title, 'Renamed');
      assert.equal(sandbox.world.bot(created.id)?.title, 'Renamed');
      sandbox.switches.errors = {
        errors: upstreamError('Nope'),
        match: { operationName: 'SvcRenameBot' },
      };
      await assertRefusal(
        await admin(gateway.url, `/bots/${created.id}`, {
          method: 'PATCH',
          cookie,
          body: { name: 'Again' },
        }),
        502,
        'BotRenameFailed',
      );
      sandbox.switches.errors = null;
      assert.equal(sandbox.world.bot(created.id)?.title, 'Renamed');

      // the guards: home workspace B's only bot, never; workspace A's last bot, only with force=1
      await assertRefusal(
        await admin(gateway.url, `/bots/${WORLD_IDS.bot3}`, { method: 'DELETE', cookie }),
        409,
        'LastBotInWorkspace',
      );
      await assertRefusal(
        await admin(gateway.url, `/bots/${WORLD_IDS.bot3}?force=1`, { method: 'DELETE', cookie }),
        409,
        'LastBotInWorkspace',
      );
      assert.ok(sandbox.world.bot(WORLD_IDS.bot3));
      const deleted = await json<AdminBotDeleted>(
        await admin(gateway.url, `/bots/${created.id}`, { method: 'DELETE', cookie }),
      );
      assert.deepEqual(deleted, {
        id: created.id,
        deleted: true,
        workspaceDeleted: false,
        socketsClosed: 0,
      });
      await json(await admin(gateway.url, `/bots/${WORLD_IDS.bot2}`, { method: 'DELETE', cookie }));
      await assertRefusal(
        await admin(gateway.url, `/bots/${WORLD_IDS.bot1}`, { method: 'DELETE', cookie }),
        409,
        'WorkspaceGoesWithIt',
      );
      assert.ok(sandbox.world.bot(WORLD_IDS.bot1));
      await assertRefusal(
        await admin(gateway.url, '/bots/b000000000000000000000ff', { method: 'DELETE', cookie }),
        404,
        'AdminBotNotFound',
      );

      // the guard cannot be read: nothing is deleted
      sandbox.switches.status = { status: 503, match: { operationName: 'SvcAdminOverview' } };
      const before = forwarded(sandbox).length;
      await assertRefusal(
        await admin(gateway.url, `/bots/${WORLD_IDS.bot1}?force=1`, { method: 'DELETE', cookie }),
        503,
        'AdminUpstreamUnavailable',
      );
      assert.deepEqual(forwarded(sandbox).slice(before).map((r) => r.search), [
        '?op=SvcAdminOverview',
      ]);
      sandbox.switches.status = { status: 500, match: { operationName: 'SvcDeleteBot' } };
      await assertRefusal(
        await admin(gateway.url, `/bots/${WORLD_IDS.bot1}?force=1`, { method: 'DELETE', cookie }),
        502,
        'BotDeleteFailed',
      );
      assert.ok(sandbox.world.bot(WORLD_IDS.bot1));
      sandbox.switches.status = null;
      const last = await json<AdminBotDeleted>(
        await admin(gateway.url, `/bots/${WORLD_IDS.bot1}?force=1`, { method: 'DELETE', cookie }),
      );
      assert.equal(last.workspaceDeleted, true);
      assert.equal(sandbox.world.bot(WORLD_IDS.bot1), undefined);
    });
  });
}
