/**
 * POST /svc/auth/recovery-link on both hosts: every row of SPEC "Recovery-link route", the
 * rules of svc_recovery_authorize (not_member, rank, cross_tenant), the request recorded, the
 * link made by the (fake) GoTrue admin endpoint with redirect to PUBLIC_URL and written to the
 * server log only, never to an answer.
 */
import assert from 'node:assert/strict';
import { startPostgres } from '../fixtures/db/postgres.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { type Account, assertCode, PUBLIC_URL, withAuth } from './helpers.ts';

for (const kind of HOSTS) {
  Deno.test(`auth recovery link (${kind} host)`, async (t) => {
    const cluster = await startPostgres();
    try {
      await withAuth(cluster, kind, async (s) => {
        let owner: Account, admin: Account, admin2: Account, member: Account;
        let shared: Account, outsider: Account;
        let home: string;
        await t.step(
          'setup: owner, two admins, member, a member of two workspaces, an outsider',
          async () => {
            owner = await s.signUp('owner@example.test');
            home = (await s.api('POST', '/provision', owner)).json.workspace.id;
            admin = await s.signUp('admin@example.test');
            admin2 = await s.signUp('admin2@example.test');
            await s.backend.seed.addMember(home, admin2.id, 'admin');
            member = await s.signUp('member@example.test');
            shared = await s.signUp('shared@example.test');
            outsider = await s.signUp('outsider@example.test');
            await s.backend.seed.addMember(home, admin.id, 'admin');
            await s.backend.seed.addMember(home, member.id, 'member');
            await s.backend.seed.addMember(home, shared.id, 'member');
            await s.backend.seed.createWorkspace('Elsewhere', outsider.id);
            const elsewhere = (await s.sql(
              "select id from public.svc_workspaces where name = 'Elsewhere'",
            ))[0].id;
            await s.backend.seed.addMember(elsewhere, shared.id, 'member');
          },
        );

        await t.step('an owner gets a link for a member: server log only', async () => {
          const logged = s.gateway.lines.length;
          const reply = await s.api('POST', '/recovery-link', owner, { email: member.email });
          assert.equal(reply.status, 200, reply.text);
          assert.deepEqual(reply.json, { delivered: 'server-log' });
          const call = s.front.calls.at(-1)!;
          assert.equal(call.status, 200);
          assert.equal(call.body?.type, 'recovery');
          assert.equal(call.body?.email, member.email);
          assert.equal(new URLSearchParams(call.search).get('redirect_to'), PUBLIC_URL);
          const link = s.front.links.at(-1)!;
          await s.sandbox.waitFor(
            () => s.gateway.lines.slice(logged).some((l) => l.includes(link)),
            'the link in the log',
          );
          assert.ok(!reply.text.includes(link));
          const recorded = await s.sql(
            'select caller_id, target_id, workspace_id from public.svc_recovery_requests',
          );
          assert.deepEqual(recorded, [{
            caller_id: owner.id,
            target_id: member.id,
            workspace_id: home,
          }]);
        });

        await t.step(
          'an admin for a member or another admin: yes; for the owner: rank',
          async () => {
            const ok = await s.api('POST', '/recovery-link', admin, {
              email: member.email.toUpperCase(),
            });
            assert.equal(ok.status, 200, ok.text);
            const equal = await s.api('POST', '/recovery-link', admin, { email: admin2.email });
            assert.equal(equal.status, 200, `an equal rank is allowed: ${equal.text}`);
            assert.equal(s.front.calls.at(-1)?.body?.email, admin2.email);
            const calls = s.front.calls.length;
            assertCode(
              await s.api('POST', '/recovery-link', admin, { email: owner.email }),
              403,
              'NotEnoughPermissions',
            );
            assertCode(
              await s.api('POST', '/recovery-link', member, { email: shared.email }),
              403,
              'NotEnoughPermissions',
            );
            assert.equal(s.front.calls.length, calls, 'no link was asked for');
          },
        );

        await t.step('not_member, cross_tenant, no workspace, no session, bad bodies', async () => {
          const calls = s.front.calls.length;
          const rows =
            (await s.sql('select count(*)::int as n from public.svc_recovery_requests'))[0].n;
          assertCode(
            await s.api('POST', '/recovery-link', owner, { email: outsider.email }),
            404,
            'RecoveryTargetNotMember',
          );
          assertCode(
            await s.api('POST', '/recovery-link', owner, { email: 'nobody@example.test' }),
            404,
            'RecoveryTargetNotMember',
          );
          assertCode(
            await s.api('POST', '/recovery-link', owner, { email: shared.email }),
            409,
            'RecoveryTargetCrossTenant',
          );
          const loner = await s.signUp('loner@example.test');
          assertCode(
            await s.api('POST', '/recovery-link', loner, { email: member.email }),
            401,
            'AuthSessionRequired',
          );
          assertCode(
            await s.api('POST', '/recovery-link', null, { email: member.email }),
            401,
            'AuthSessionRequired',
          );
          for (
            const body of [{}, { email: 'no-at-sign' }, { email: 5 }, 'nope', {
              email: member.email,
              x: 1,
            }]
          ) {
            assertCode(await s.api('POST', '/recovery-link', owner, body), 400, 'InvalidRequest');
          }
          assert.equal(s.front.calls.length, calls, 'no link was asked for');
          const after =
            (await s.sql('select count(*)::int as n from public.svc_recovery_requests'))[0].n;
          assert.equal(after, rows, 'refusals are not recorded as granted');
        });

        await t.step(
          'an unmapped refusal of svc_recovery_authorize: NotEnoughPermissions',
          async () => {
            s.backend.rest.switches.override = (fn) =>
              fn === 'svc_recovery_authorize'
                ? Response.json({ code: 'PT403', hint: 'surprise', message: 'internal words' }, {
                  status: 403,
                })
                : undefined;
            const reply = await s.api('POST', '/recovery-link', owner, { email: member.email });
            s.backend.rest.switches.override = null;
            assert.equal(assertCode(reply, 403, 'NotEnoughPermissions'), 'That is not allowed');
            s.backend.rest.switches.fail500 = true;
            const down = await s.api('POST', '/recovery-link', owner, { email: member.email });
            s.backend.rest.switches.fail500 = false;
            assertCode(down, 503, 'ProxyAuthUnavailable');
          },
        );

        await t.step(
          'the link generator returns no token or fails: 502 RecoveryLinkFailed',
          async () => {
            s.front.switches.noToken = true;
            const none = await s.api('POST', '/recovery-link', owner, { email: member.email });
            s.front.switches.noToken = false;
            assertCode(none, 502, 'RecoveryLinkFailed');
            s.front.switches.status = 500;
            const failed = await s.api('POST', '/recovery-link', owner, { email: member.email });
            s.front.switches.status = null;
            assertCode(failed, 502, 'RecoveryLinkFailed');
          },
        );

        await t.step(
          'not enabled: 501; no PUBLIC_URL: 409; both only to an owner or admin, before the target is read',
          async () => {
            const off = await s.otherGateway({ AUTH_RECOVERY_LINK_LOG: '' });
            const noUrl = await s.otherGateway({ PUBLIC_URL: '' });
            const on = await s.otherGateway({ AUTH_RECOVERY_LINK_LOG: 'true' });
            const before = s.backend.rest.calls.get('svc_recovery_authorize') ?? 0;
            // the caller is checked first: nothing of the route's settings is told to a caller
            // without a session, with a forged one, without a workspace, or below admin
            const [head, claims] = owner.jwt.split('.');
            const forged = { ...owner, jwt: `${head}.${claims}.${'A'.repeat(43)}` };
            const loner = await s.signUp('loner-settings@example.test');
            for (const gateway of [off, noUrl]) {
              for (const who of [null, forged, loner]) {
                assertCode(
                  await s.api('POST', '/recovery-link', who, { email: member.email }, gateway),
                  401,
                  'AuthSessionRequired',
                );
              }
              assertCode(
                await s.api('POST', '/recovery-link', member, { email: admin.email }, gateway),
                403,
                'NotEnoughPermissions',
              );
            }
            assertCode(
              await s.api('POST', '/recovery-link', owner, { email: member.email }, off),
              501,
              'RecoveryLinkNotEnabled',
            );
            assertCode(
              await s.api('POST', '/recovery-link', owner, { email: member.email }, noUrl),
              409,
              'ProxyPublicUrlMissing',
            );
            assert.equal(s.backend.rest.calls.get('svc_recovery_authorize') ?? 0, before);
            const yes = await s.api('POST', '/recovery-link', owner, { email: member.email }, on);
            assert.equal(yes.status, 200, yes.text);
          },
        );

        await t.step('no token, key or link appears in any answer', () => {
          assert.ok(s.front.links.length >= 3);
          s.assertNoSecretInAnswers();
        });
      });
    } finally {
      await cluster.stop();
    }
  });
}
