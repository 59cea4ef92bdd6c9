/**
 * The session gate over HTTP on both hosts, against real PostgreSQL behind the
 * PostgREST-compatible endpoint (SPEC "Authentication" 2, step 2 of the check order, "Gate and
 * fences", "Configuration states"): the fast refusals with zero network calls, the database's
 * answers, caching per token and shared lookups, and the misconfigured gate.
 */
import assert from 'node:assert/strict';
import { SignJWT } from 'jose';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { startPostgres } from '../fixtures/db/postgres.ts';
import {
  assertNothingReached,
  assertRefusal,
  forwarded,
  postGraphql,
} from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';
import { BOT_QUERY, statusOf, withGateOn } from './helpers.ts';

const ME = { query: '{ currentUser { id } }' };
const BOT1 = { query: BOT_QUERY, variables: { botID: WORLD_IDS.bot1 } };

for (const kind of HOSTS) {
  Deno.test(`[${kind}] gate on`, async (t) => {
    const cluster = await startPostgres();
    try {
      await t.step('refusals with zero network calls: 401 AuthSessionRequired', async () => {
        await withGateOn(kind, cluster, {}, async ({ sandbox, backend, gateway, users, calls }) => {
          const rest = backend.rest;
          const expired = await rest.mintUserToken(users.a.id, { expSeconds: -60 });
          const foreign = await rest.mintUserToken(users.a.id, {
            issuer: 'https://other.example/auth/v1',
          });
          const noExp = await new SignJWT({ sub: users.a.id, iss: `${rest.url}/auth/v1` })
            .setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(rest.jwtSecret));
          const cases: Array<[string, Record<string, string>]> = [
            ['no authorization', {}],
            ['not a bearer', { authorization: `Basic ${users.a.jwt}` }],
            ['empty bearer', { authorization: 'Bearer ' }],
            ['not a JWT', { authorization: 'Bearer not-a-jwt' }],
            ['exp passed', { authorization: `Bearer ${expired}` }],
            ['other issuer', { authorization: `Bearer ${foreign}` }],
            ['no exp', { authorization: `Bearer ${noExp}` }],
          ];
          await assertNothingReached(sandbox, async () => {
            for (const [what, headers] of cases) {
              const res = await postGraphql(gateway.url, BOT1, headers);
              await assertRefusal(res, 401, 'AuthSessionRequired').catch((e) => {
                throw new Error(`${what}: ${e.message}`);
              });
            }
          });
          assert.equal(calls('svc_my_bot_ids'), 0, 'no backend call');
        });
      });

      await t.step(
        'a signed-in caller is admitted; a second request makes no backend call',
        async () => {
          await withGateOn(
            kind,
            cluster,
            {},
            async ({ sandbox, gateway, users, bearer, calls }) => {
              const first = await postGraphql(gateway.url, BOT1, bearer(users.a.jwt));
              assert.equal(first.status, 200);
              assert.equal((await first.json()).data.bot.id, WORLD_IDS.bot1);
              assert.equal(calls('svc_my_bot_ids'), 1);
              assert.equal(
                await statusOf(await postGraphql(gateway.url, ME, bearer(users.a.jwt))),
                200,
              );
              assert.equal(calls('svc_my_bot_ids'), 1, 'cached for 30 s per token');
              const sent = forwarded(sandbox);
              assert.equal(sent.length, 2);
              for (const r of sent) {
                assert.equal(
                  r.headers.authorization,
                  `Bearer ${sandbox.token}`,
                  'the master token',
                );
                assert.ok(!JSON.stringify(r).includes(users.a.jwt), 'the session token stays here');
              }
            },
          );
        },
      );

      await t.step('concurrent askers with one token share one backend call', async () => {
        await withGateOn(kind, cluster, {}, async ({ backend, gateway, users, bearer, calls }) => {
          backend.rest.switches.delayMs = 150;
          const answers = await Promise.all(
            Array.from({ length: 6 }, () => postGraphql(gateway.url, ME, bearer(users.b.jwt))),
          );
          for (const res of answers) assert.equal(await statusOf(res), 200);
          assert.equal(calls('svc_my_bot_ids'), 1);
        });
      });

      await t.step('the database layer answering 401 is 401 AuthSessionRequired', async () => {
        await withGateOn(kind, cluster, {}, async ({ sandbox, backend, gateway, users, calls }) => {
          // Right issuer and exp, wrong signature: only the database can tell.
          const forged = await new SignJWT({
            sub: users.a.id,
            role: 'authenticated',
            iss: `${backend.rest.url}/auth/v1`,
          }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h')
            .sign(new TextEncoder().encode('not-the-secret'));
          await assertNothingReached(sandbox, async () => {
            for (let i = 0; i < 2; i++) {
              await assertRefusal(
                await postGraphql(gateway.url, ME, { authorization: `Bearer ${forged}` }),
                401,
                'AuthSessionRequired',
              );
            }
          });
          assert.equal(calls('svc_my_bot_ids'), 1, 'the 401 is cached like an admission');
        });
      });

      await t.step('unreachable, non-200 or non-array is 503 ProxyAuthUnavailable', async () => {
        await withGateOn(
          kind,
          cluster,
          {},
          async ({ sandbox, backend, gateway, users, bearer }) => {
            const rest = backend.rest;
            const tokens = await Promise.all(
              [1, 2, 3, 4].map((i) => rest.mintUserToken(users.a.id, { expSeconds: 3600 + i })),
            );
            await assertNothingReached(sandbox, async () => {
              rest.switches.fail500 = true;
              await assertRefusal(
                await postGraphql(gateway.url, ME, bearer(tokens[0])),
                503,
                'ProxyAuthUnavailable',
              );
              rest.switches.fail500 = false;
              rest.switches.override = () =>
                new Response(JSON.stringify({ ids: [WORLD_IDS.bot1] }), {
                  status: 200,
                  headers: { 'content-type': 'application/json' },
                });
              await assertRefusal(
                await postGraphql(gateway.url, ME, bearer(tokens[1])),
                503,
                'ProxyAuthUnavailable',
              );
              rest.switches.override = () =>
                new Response(JSON.stringify({ message: 'no' }), { status: 403 });
              await assertRefusal(
                await postGraphql(gateway.url, ME, bearer(tokens[2])),
                503,
                'ProxyAuthUnavailable',
              );
              rest.switches.override = null;
              await rest.switches.setUnreachable(true);
              await assertRefusal(
                await postGraphql(gateway.url, ME, bearer(tokens[3])),
                503,
                'ProxyAuthUnavailable',
              );
            });
            await rest.switches.setUnreachable(false);
            const back = await postGraphql(gateway.url, ME, bearer(tokens[3]));
            assert.equal(await statusOf(back), 200, 'a 503 is not cached');
          },
        );
      });
    } finally {
      await cluster.stop();
    }
  });

  Deno.test(`[${kind}] gate misconfigured: 500 ProxyAuthMisconfigured everywhere, health 503`, async () => {
    await withGateway(
      kind,
      { env: { CLIENT_BACKEND_URL: 'http://127.0.0.1:9' } },
      async ({ sandbox, gateway }) => {
        await assertNothingReached(sandbox, async () => {
          await assertRefusal(
            await postGraphql(gateway.url, ME, { authorization: 'Bearer x.y.z' }),
            500,
            'ProxyAuthMisconfigured',
          );
          const upload = await fetch(
            `${gateway.url}/svc/api/filestorage/upload/bot?botID=${WORLD_IDS.bot1}`,
            { method: 'POST', body: new FormData() },
          );
          await assertRefusal(upload, 500, 'ProxyAuthMisconfigured');
        });
        const health = await fetch(`${gateway.url}/svc/healthz`);
        assert.equal(health.status, 503);
        assert.deepEqual(await health.json(), { ok: false });
      },
    );
  });
}
