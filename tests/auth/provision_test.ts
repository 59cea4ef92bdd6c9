/**
 * POST /svc/auth/provision and POST /svc/auth/bots on both hosts, on the real PostgreSQL with
 * the PostgREST-compatible fixture and the sandbox upstream: first bot, idempotence, the race
 * (ten concurrent provisions: one workspace, one bot), two users apart, every upstream answer
 * row, caps, the hint mapping, bodies, methods, mounting, and no secret in any answer.
 */
import assert from 'node:assert/strict';
import { SANDBOX_TOKEN, upstreamError, WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { startPostgres } from '../fixtures/db/postgres.ts';
import { assertNothingReached } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { assertCode, upstreamOps, withAuth } from './helpers.ts';

const BOT_QUERY = 'query BotTitle($botID: BotID!) { bot(id: $botID) { id title } }';

for (const kind of HOSTS) {
  Deno.test(`auth provision and bots (${kind} host)`, async (t) => {
    const cluster = await startPostgres();
    try {
      await withAuth(cluster, kind, async (s) => {
        await t.step('provision opens an owned workspace with a first bot, once', async () => {
          const user = await s.signUp('first@example.test');
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
          const from = s.sandbox.received.length;
          const first = await s.api('POST', '/provision', user, { name: 'Support' });
          assert.equal(first.status, 200, first.text);
          assert.equal(first.json.workspace.role, 'owner');
          assert.equal(first.json.bots.length, 1);
          assert.equal(first.json.pending, false);
          const bot = first.json.created;
          assert.deepEqual(first.json.bots, [bot]);
          assert.equal(bot.name, 'Support');
          assert.equal(s.sandbox.world.bot(bot.id)?.title, 'Support');
          assert.equal(s.sandbox.world.bot(bot.id)?.workspaceId, WORLD_IDS.workspaceA);
          assert.deepEqual(upstreamOps(s.sandbox, from), ['SvcProvisionBot']);
          const again = await s.api('POST', '/provision', user);
          assert.equal(again.status, 200);
          assert.equal(again.json.workspace.id, first.json.workspace.id);
          assert.deepEqual(again.json.bots, [bot]);
          assert.equal(again.json.created, null);
          assert.deepEqual(upstreamOps(s.sandbox, from), ['SvcProvisionBot']);
          // the gate opens the new bot for this user at once (its cached verdict was dropped)
          const gql = await fetch(`${s.gateway.url}/svc/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${user.jwt}` },
            body: JSON.stringify({ query: BOT_QUERY, variables: { botID: bot.id } }),
          });
          const answer = await gql.json();
          assert.equal(gql.status, 200, JSON.stringify(answer));
          assert.equal(answer.data.bot.id, bot.id);
        });

        await t.step('ten concurrent provisions of one user: one workspace, one bot', async () => {
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
        });

        await t.step("two users never see each other's workspace or bots", async () => {
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
        });

        await t.step('POST bots adds a bot; bad names and bodies are refused first', async () => {
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
        });

        await t.step('upstream answers to a create map to the spec rows', async () => {
          const rows: [() => void, number, string, RegExp?][] = [
            [() => (s.sandbox.switches.drop = {}), 502, 'ProvisionUnreachable'],
            [
              () => (s.sandbox.switches.errors = {
                errors: upstreamError('TooManyBotsInWorkspace'),
              }),
              409,
              'WorkspaceFull',
            ],
            [
              () => (s.sandbox.switches.errors = {
                errors: upstreamError('WorkspaceDoesNotExist'),
              }),
              500,
              'ProxyAuthMisconfigured',
              new RegExp(WORLD_IDS.workspaceA),
            ],
            [
              () => (s.sandbox.switches.errors = { errors: upstreamError('NotEnoughPermissions') }),
              500,
              'ProxyAuthMisconfigured',
              new RegExp(WORLD_IDS.workspaceA),
            ],
            [() => (s.sandbox.switches.status = { status: 503 }), 502, 'ProvisionRefused', /503/],
            [
              () => (s.sandbox.switches.errors = { errors: upstreamError('Weird') }),
              502,
              'ProvisionRefused',
            ],
          ];
          let n = 0;
          for (const [flip, status, code, message] of rows) {
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
          }
          const made = await s.api('POST', '/bots', await s.signUp('nows@example.test'), {
            name: 'x',
          });
          assertCode(made, 404, 'BotWorkspaceMissing');
        });

        await t.step(
          'caps: workspace_bot_cap and deployment_bot_cap are BotLimitReached',
          async () => {
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
          },
        );

        await t.step(
          'an attach that fails deletes the new upstream bot and the reservation',
          async () => {
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
          },
        );

        await t.step('database answers through the hint table', async () => {
          const owner = await s.signUp('hint-owner@example.test');
          const p = await s.api('POST', '/provision', owner);
          const member = await s.signUp('hint-member@example.test');
          await s.backend.seed.addMember(p.json.workspace.id, member.id, 'member');
          await assertNothingReached(s.sandbox, async () => {
            assertCode(
              await s.api('POST', '/bots', member, { name: 'x' }),
              403,
              'BotAdminRequired',
            );
            const mp = await s.api('POST', '/provision', member);
            assert.equal(mp.status, 200);
            assert.deepEqual(mp.json.bots, []);
            assert.equal(mp.json.workspace.role, 'member');
            const other = await s.backend.seed.createWorkspace('Other', owner.id);
            assertCode(await s.api('POST', '/provision', owner), 409, 'BotWorkspaceAmbiguous');
            await s.sql('delete from public.svc_workspaces where id = $1', [other]);
            s.backend.rest.switches.override = (fn) =>
              fn === 'svc_provision'
                ? Response.json({ code: 'PT418', hint: 'odd', message: 'secret detail' }, {
                  status: 418,
                })
                : undefined;
            const odd = await s.api('POST', '/provision', owner);
            assert.equal(assertCode(odd, 418, 'BotRequestRefused'), 'That is not allowed');
            s.backend.rest.switches.override = null;
            s.backend.rest.switches.fail500 = true;
            assertCode(await s.api('POST', '/provision', owner), 503, 'ProxyAuthUnavailable');
            s.backend.rest.switches.fail500 = false;
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

        await t.step('methods, unknown paths, mounting and SVC_WORKSPACE_ID', async () => {
          const user = await s.signUp('methods@example.test');
          await assertNothingReached(s.sandbox, async () => {
            for (
              const [method, path, allow] of [
                ['GET', '/provision', 'POST'],
                ['DELETE', '/bots', 'POST'],
                ['PUT', '/bots/abc', 'PATCH, DELETE'],
                ['GET', '/recovery-link', 'POST'],
              ]
            ) {
              const reply = await s.api(method, path, user);
              assert.equal(reply.status, 405, `${method} ${path}`);
              assert.equal(reply.headers.get('allow'), allow);
              assert.equal(reply.text, '');
            }
            assertCode(await s.api('POST', '/nothing', user), 404, 'NotFound');
            const origin = 'https://site.example.test';
            const cors = await s.otherGateway({ ALLOWED_ORIGINS: origin });
            const preflight = await s.api('OPTIONS', '/bots/x', null, undefined, cors, {
              origin,
              'access-control-request-method': 'PATCH',
            });
            assert.equal(preflight.status, 204);
            assert.equal(preflight.headers.get('access-control-allow-origin'), origin);
            const listed = await s.api('POST', '/bots', user, {}, cors, { origin });
            assertCode(listed, 422, 'BadBotName');
            assert.equal(listed.headers.get('access-control-allow-origin'), origin);
            const stranger = await s.api('POST', '/bots', user, {}, cors, {
              origin: 'https://evil.example.test',
            });
            assertCode(stranger, 403, 'ProxyOriginForbidden');
            const noWs = await s.otherGateway({ SVC_WORKSPACE_ID: '' });
            for (
              const [method, path] of [['POST', '/provision'], ['POST', '/bots'], [
                'PATCH',
                '/bots/x',
              ], ['DELETE', '/bots/x']]
            ) {
              const reply = await s.api(
                method,
                path,
                user,
                method === 'DELETE' ? undefined : { name: 'n' },
                noWs,
              );
              assert.match(assertCode(reply, 500, 'ProxyAuthMisconfigured'), /SVC_WORKSPACE_ID/);
            }
            const noKey = await s.otherGateway({ BACKEND_SERVICE_ROLE_KEY: '' });
            for (const path of ['/provision', '/bots', '/recovery-link']) {
              const unmounted = await s.api('POST', path, user, { email: 'a@b.c' }, noKey);
              assert.equal(unmounted.status, 404, `${path} is not mounted without the key`);
            }
            const gateOff = await s.otherGateway({
              CLIENT_BACKEND_URL: '',
              CLIENT_BACKEND_ANON_KEY: '',
            });
            assert.equal((await s.api('POST', '/provision', user, undefined, gateOff)).status, 404);
          });
        });

        await t.step('no token, key or link appears in any answer', () => {
          s.assertNoSecretInAnswers();
        });
      });
    } finally {
      await cluster.stop();
    }
  });
}
