/**
 * PATCH and DELETE /svc/auth/bots/<id> on both hosts: rename (the database's check first,
 * upstream second, the name recorded by the service role third; the old name kept on an upstream
 * refusal; a record that fails is reported and finishes on a retry), delete (guards first and
 * failing closed, upstream first, database second; an upstream refusal removes nothing; a
 * database failure after the upstream delete, in either of its two steps, is reported and
 * finishes on a retry), and no secret in any answer.
 */
import assert from 'node:assert/strict';
import { upstreamError, WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { startPostgres } from '../fixtures/db/postgres.ts';
import { assertNothingReached } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { type Account, assertCode, type AuthSetup, upstreamOps, withAuth } from './helpers.ts';

/** A signed-up account with `count` bots (provision, then POST bots); answers their ids. */
async function withBots(s: AuthSetup, email: string, count: number) {
  const user = await s.signUp(email);
  const first = await s.api('POST', '/provision', user, { name: 'Bot 0' });
  const ids: string[] = [first.json.created.id];
  for (let i = 1; i < count; i++) {
    ids.push((await s.api('POST', '/bots', user, { name: `Bot ${i}` })).json.bot.id);
  }
  return { user, ids };
}

async function nameOf(s: AuthSetup, id: string): Promise<string | undefined> {
  const rows = await s.sql('select name from public.svc_bots where upstream_bot_id = $1', [id]);
  return rows[0]?.name;
}

function dbError(status: number): Response {
  return Response.json({ code: 'XX000', hint: null, message: 'fixture failure', details: null }, {
    status,
  });
}

for (const kind of HOSTS) {
  Deno.test(`auth bot rename and delete (${kind} host)`, async (t) => {
    const cluster = await startPostgres();
    try {
      await withAuth(cluster, kind, async (s) => {
        let owner: Account;
        let ids: string[];
        await t.step('setup: an owner with three bots', async () => {
          ({ user: owner, ids } = await withBots(s, 'owner@example.test', 3));
          assert.equal(ids.length, 3);
        });

        await t.step('rename: database, then upstream', async () => {
          const from = s.sandbox.received.length;
          const reply = await s.api('PATCH', `/bots/${ids[0]}`, owner, { name: ' Sales ' });
          assert.equal(reply.status, 200, reply.text);
          assert.deepEqual(reply.json, { bot: { id: ids[0], name: 'Sales' } });
          assert.equal(await nameOf(s, ids[0]), 'Sales');
          assert.equal(s.sandbox.world.bot(ids[0])?.title, 'Sales');
          assert.deepEqual(upstreamOps(s.sandbox, from), ['SvcRenameBot']);
        });

        await t.step(
          'rename refused upstream: 502 BotRenameFailed, old name restored',
          async () => {
            s.sandbox.switches.errors = {
              errors: upstreamError('NotEnoughPermissions'),
              match: { operationName: 'SvcRenameBot' },
            };
            const reply = await s.api('PATCH', `/bots/${ids[0]}`, owner, { name: 'Marketing' });
            s.clearSwitches();
            assertCode(reply, 502, 'BotRenameFailed');
            assert.equal(await nameOf(s, ids[0]), 'Sales');
            assert.equal(s.sandbox.world.bot(ids[0])?.title, 'Sales');
            s.sandbox.switches.drop = { match: { operationName: 'SvcRenameBot' } };
            const dropped = await s.api('PATCH', `/bots/${ids[0]}`, owner, { name: 'Ops' });
            s.clearSwitches();
            assertCode(dropped, 502, 'BotRenameFailed');
            assert.equal(await nameOf(s, ids[0]), 'Sales');
          },
        );

        await t.step(
          'rename: the record after the upstream fails: reported, a second rename finishes',
          async () => {
            s.backend.rest.switches.override = (fn) =>
              fn === 'svc_bot_renamed' ? dbError(500) : undefined;
            const reply = await s.api('PATCH', `/bots/${ids[0]}`, owner, { name: 'Support' });
            s.backend.rest.switches.override = null;
            assert.match(assertCode(reply, 503, 'ProxyAuthUnavailable'), /renamed upstream/);
            assert.equal(s.sandbox.world.bot(ids[0])?.title, 'Support');
            assert.equal(await nameOf(s, ids[0]), 'Sales', 'the row keeps the name it had');
            const again = await s.api('PATCH', `/bots/${ids[0]}`, owner, { name: 'Support' });
            assert.equal(again.status, 200, again.text);
            assert.equal(await nameOf(s, ids[0]), 'Support');
            const back = await s.api('PATCH', `/bots/${ids[0]}`, owner, { name: 'Sales' });
            assert.equal(back.status, 200, back.text);
          },
        );

        await t.step('rename refusals before the upstream', async () => {
          await assertNothingReached(s.sandbox, async () => {
            assertCode(
              await s.api('PATCH', `/bots/${ids[0]}`, owner, { name: '' }),
              422,
              'BadBotName',
            );
            assertCode(await s.api('PATCH', `/bots/${ids[0]}`, owner, {}), 422, 'BadBotName');
            assertCode(
              await s.api('PATCH', '/bots/b0000000000000000000ffff', owner, { name: 'x' }),
              404,
              'BotNotFound',
            );
            assertCode(await s.api('PATCH', '/bots/', owner, { name: 'x' }), 404, 'BotNotFound');
            assertCode(
              await s.api('PATCH', `/bots/${ids[0]}`, null, { name: 'x' }),
              401,
              'AuthSessionRequired',
            );
            const member = await s.signUp('member@example.test');
            const [{ workspace_id }] = await s.sql(
              'select workspace_id from public.svc_bots where upstream_bot_id = $1',
              [ids[0]],
            );
            await s.backend.seed.addMember(workspace_id, member.id, 'member');
            assertCode(
              await s.api('PATCH', `/bots/${ids[0]}`, member, { name: 'x' }),
              403,
              'BotAdminRequired',
            );
            assertCode(await s.api('DELETE', `/bots/${ids[0]}`, member), 403, 'BotAdminRequired');
          });
        });

        await t.step('delete: empty id or a slash is 404 before anything runs', async () => {
          const before = [...s.backend.rest.calls.values()].reduce((a, b) => a + b, 0);
          await assertNothingReached(s.sandbox, async () => {
            for (const path of ['/bots/', '/bots/a%2Fb', `/bots/${ids[0]}/x`]) {
              assertCode(await s.api('DELETE', path, owner), 404, 'BotNotFound');
            }
          });
          const after = [...s.backend.rest.calls.values()].reduce((a, b) => a + b, 0);
          assert.equal(after, before, 'no database call');
        });

        await t.step('delete: upstream first, then the database', async () => {
          const from = s.sandbox.received.length;
          const reply = await s.api('DELETE', `/bots/${ids[2]}`, owner);
          assert.equal(reply.status, 200, reply.text);
          assert.deepEqual(reply.json, { deleted: ids[2] });
          assert.equal(s.sandbox.world.bot(ids[2]), undefined);
          assert.equal(await nameOf(s, ids[2]), undefined);
          assert.deepEqual(upstreamOps(s.sandbox, from), ['SvcWorkspaceBots', 'SvcDeleteBot']);
          ids.pop();
        });

        await t.step('delete refused upstream: 502 BotDeleteFailed, nothing removed', async () => {
          s.sandbox.switches.errors = {
            errors: upstreamError('InternalServerError'),
            match: { operationName: 'SvcDeleteBot' },
          };
          const reply = await s.api('DELETE', `/bots/${ids[1]}`, owner);
          s.clearSwitches();
          assertCode(reply, 502, 'BotDeleteFailed');
          assert.ok(s.sandbox.world.bot(ids[1]));
          assert.equal(await nameOf(s, ids[1]), 'Bot 1');
        });

        await t.step('guards that cannot be checked: 503 BotDeleteUnavailable', async () => {
          s.backend.rest.switches.override = (fn) =>
            fn === 'svc_bot_delete_check' ? dbError(500) : undefined;
          await assertNothingReached(s.sandbox, async () => {
            assertCode(
              await s.api('DELETE', `/bots/${ids[1]}`, owner),
              503,
              'BotDeleteUnavailable',
            );
          });
          s.backend.rest.switches.override = null;
          s.sandbox.switches.status = { status: 500, match: { operationName: 'SvcWorkspaceBots' } };
          const from = s.sandbox.received.length;
          const reply = await s.api('DELETE', `/bots/${ids[1]}`, owner);
          s.clearSwitches();
          assertCode(reply, 503, 'BotDeleteUnavailable');
          assert.deepEqual(upstreamOps(s.sandbox, from), ['SvcWorkspaceBots']);
          assert.ok(s.sandbox.world.bot(ids[1]));
        });

        await t.step(
          'database failure after the upstream delete is reported, then finished',
          async () => {
            // the record of the upstream delete fails: a retry deletes upstream again (already
            // gone counts as done), records it and forgets the row
            s.backend.rest.switches.override = (fn) =>
              fn === 'svc_bot_upstream_deleted' ? dbError(500) : undefined;
            const unrecorded = await s.api('DELETE', `/bots/${ids[1]}`, owner);
            s.backend.rest.switches.override = null;
            assert.match(assertCode(unrecorded, 503, 'ProxyAuthUnavailable'), /deleted upstream/);
            assert.equal(s.sandbox.world.bot(ids[1]), undefined, 'gone upstream');
            assert.equal(await nameOf(s, ids[1]), 'Bot 1', 'the row is still there');
            const retried = await s.api('DELETE', `/bots/${ids[1]}`, owner);
            assert.equal(retried.status, 200, retried.text);
            assert.equal(await nameOf(s, ids[1]), undefined);
            // the record succeeds, the forget fails: a retry only forgets (nothing upstream)
            ids[1] = (await s.api('POST', '/bots', owner, { name: 'Bot 1' })).json.bot.id;
            s.backend.rest.switches.override = (fn) =>
              fn === 'svc_bot_forget' ? dbError(500) : undefined;
            const reply = await s.api('DELETE', `/bots/${ids[1]}`, owner);
            s.backend.rest.switches.override = null;
            const message = assertCode(reply, 503, 'ProxyAuthUnavailable');
            assert.match(message, /deleted upstream/);
            assert.equal(s.sandbox.world.bot(ids[1]), undefined, 'gone upstream');
            assert.equal(await nameOf(s, ids[1]), 'Bot 1', 'the row is still there');
            const from = s.sandbox.received.length;
            const again = await s.api('DELETE', `/bots/${ids[1]}`, owner);
            assert.equal(again.status, 200, again.text);
            assert.deepEqual(upstreamOps(s.sandbox, from), [], 'the retry only forgets the row');
            assert.equal(await nameOf(s, ids[1]), undefined);
            ids.pop();
          },
        );

        await t.step("the caller's last openable bot: 409 LastBotInWorkspace", async () => {
          await assertNothingReached(s.sandbox, async () => {
            assertCode(await s.api('DELETE', `/bots/${ids[0]}`, owner), 409, 'LastBotInWorkspace');
          });
          assert.ok(s.sandbox.world.bot(ids[0]));
        });

        await t.step(
          'the last bot of the deployment workspace: 409 LastBotInWorkspace',
          async () => {
            // the owner also holds bot 3 (upstream workspace B); workspace A keeps only ids[0]
            const [{ workspace_id }] = await s.sql(
              'select workspace_id from public.svc_bots where upstream_bot_id = $1',
              [ids[0]],
            );
            await s.backend.seed.createBot(workspace_id, 'Bot 3', WORLD_IDS.bot3);
            for (const bot of s.sandbox.world.botsOf(WORLD_IDS.workspaceA)) {
              if (bot.id !== ids[0]) s.sandbox.world.deleteBot(bot.id);
            }
            const from = s.sandbox.received.length;
            const reply = await s.api('DELETE', `/bots/${ids[0]}`, owner);
            assertCode(reply, 409, 'LastBotInWorkspace');
            assert.deepEqual(upstreamOps(s.sandbox, from), ['SvcWorkspaceBots']);
            assert.ok(s.sandbox.world.bot(ids[0]));
          },
        );

        await t.step('no token, key or link appears in any answer', () => {
          s.assertNoSecretInAnswers();
        });
      });
    } finally {
      await cluster.stop();
    }
  });
}
