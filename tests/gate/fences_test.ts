/**
 * Checks 14, 15, 16, 19 and 20 with the gate on, over HTTP on both hosts (SPEC "Order in which
 * a GraphQL body is checked", "Document checks in detail", "Gate and fences", "Route table"
 * upload row): each caller reaches its own bots only, an account without a bot is sent to
 * provision, the account checks and the allowlist are on, the resource fence is bound by
 * default, and the account-scoped upload is refused.
 */
import assert from 'node:assert/strict';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { startPostgres } from '../fixtures/db/postgres.ts';
import { assertNothingReached, assertRefusal, postGraphql } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { BOT_QUERY, FLOW_QUERY, GROUPS_QUERY, statusOf, withGateOn } from './helpers.ts';

const bot = (botID: string) => ({ query: BOT_QUERY, variables: { botID } });

function upload(url: string, kind: string, jwt: string, botID?: string): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob(['hello']), 'a.txt');
  const query = botID ? `?botID=${botID}` : '';
  return fetch(`${url}/svc/api/filestorage/upload/${kind}${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${jwt}` },
    body: form,
  });
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] gate on: fences and account checks`, async (t) => {
    const cluster = await startPostgres();
    try {
      await t.step('two users reach only their own bots (403 BotNotAllowed)', async () => {
        await withGateOn(kind, cluster, {}, async ({ sandbox, gateway, users, bearer }) => {
          assert.equal(
            await statusOf(
              await postGraphql(gateway.url, bot(WORLD_IDS.bot2), bearer(users.a.jwt)),
            ),
            200,
          );
          assert.equal(
            await statusOf(
              await postGraphql(gateway.url, bot(WORLD_IDS.bot3), bearer(users.b.jwt)),
            ),
            200,
          );
          await assertNothingReached(sandbox, async () => {
            for (
              const [jwt, foreign] of [[users.a.jwt, WORLD_IDS.bot3], [users.b.jwt, WORLD_IDS.bot1]]
            ) {
              const message = await assertRefusal(
                await postGraphql(gateway.url, bot(foreign), bearer(jwt)),
                403,
                'BotNotAllowed',
              );
              assert.equal(message, `Bot ${foreign} belongs to another workspace`);
            }
            const literal = { query: `{ bot(id: "${WORLD_IDS.bot1}") { id } }` };
            await assertRefusal(
              await postGraphql(gateway.url, literal, bearer(users.b.jwt)),
              403,
              'BotNotAllowed',
            );
            await assertRefusal(
              await postGraphql(
                gateway.url,
                [bot(WORLD_IDS.bot3), bot(WORLD_IDS.bot1)],
                bearer(users.b.jwt),
              ),
              403,
              'BotNotAllowed',
            );
          });
        });
      });

      await t.step(
        'an account with no bot: 403 AuthTenantForbidden when it names one',
        async () => {
          await withGateOn(kind, cluster, {}, async ({ sandbox, gateway, users, bearer }) => {
            await assertNothingReached(sandbox, async () => {
              await assertRefusal(
                await postGraphql(gateway.url, bot(WORLD_IDS.bot1), bearer(users.c.jwt)),
                403,
                'AuthTenantForbidden',
              );
              await assertRefusal(
                await upload(gateway.url, 'bot', users.c.jwt, WORLD_IDS.bot1),
                403,
                'AuthTenantForbidden',
              );
            });
            const plain = await postGraphql(
              gateway.url,
              { query: '{ currentUser { id } }' },
              bearer(users.c.jwt),
            );
            assert.equal(await statusOf(plain), 200, 'naming no bot passes');
          });
        },
      );

      await t.step(
        '14 AccountScopeBlocked, 15 AccountStructureBlocked, 16 allowlist on',
        async () => {
          await withGateOn(kind, cluster, {}, async ({ sandbox, gateway, users, bearer }) => {
            const as = bearer(users.a.jwt);
            await assertNothingReached(sandbox, async () => {
              await assertRefusal(
                await postGraphql(gateway.url, { query: '{ currentUser { id email } }' }, as),
                403,
                'AccountScopeBlocked',
              );
              await assertRefusal(
                await postGraphql(gateway.url, {
                  query: `{ bot(id: "${WORLD_IDS.bot1}") { id invites { id } } }`,
                }, as),
                403,
                'AccountScopeBlocked',
              );
              await assertRefusal(
                await postGraphql(gateway.url, {
                  query: `mutation { renameBot(botID: "${WORLD_IDS.bot1}", newTitle: "x") { id } }`,
                }, as),
                403,
                'AccountStructureBlocked',
              );
              await assertRefusal(
                await postGraphql(gateway.url, { query: '{ notAFieldOnTheAllowlist }' }, as),
                403,
                'OperationNotAllowed',
              );
            });
          });
        },
      );

      await t.step(
        'useraccount upload: 403 AccountOperationBlocked; bot uploads fenced',
        async () => {
          await withGateOn(kind, cluster, {}, async ({ sandbox, gateway, users }) => {
            await assertNothingReached(sandbox, async () => {
              await assertRefusal(
                await upload(gateway.url, 'useraccount', users.a.jwt),
                403,
                'AccountOperationBlocked',
              );
              const message = await assertRefusal(
                await upload(gateway.url, 'bot', users.a.jwt, WORLD_IDS.bot3),
                403,
                'BotNotAllowed',
              );
              assert.equal(message, `Bot ${WORLD_IDS.bot3} belongs to another workspace`);
              await assertRefusal(
                await fetch(
                  `${gateway.url}/svc/api/filestorage/upload/bot?botID=${WORLD_IDS.bot1}`,
                  {
                    method: 'POST',
                    body: new FormData(),
                  },
                ),
                401,
                'AuthSessionRequired',
              );
            });
            const own = await upload(gateway.url, 'bot', users.a.jwt, WORLD_IDS.bot1);
            assert.equal(await statusOf(own), 200);
            assert.equal(sandbox.received.at(-1)?.headers.authorization, `Bearer ${sandbox.token}`);
          });
        },
      );

      await t.step('resource fence bound by default: ids learned under A refuse B', async () => {
        await withGateOn(
          kind,
          cluster,
          { store: false },
          async ({ sandbox, gateway, users, bearer }) => {
            const learn = await postGraphql(
              gateway.url,
              { query: GROUPS_QUERY, variables: { botID: WORLD_IDS.bot1 } },
              bearer(users.a.jwt),
            );
            const groups = (await learn.json()).data.bot.flowGroups.map((g: { id: string }) =>
              g.id
            );
            await assertNothingReached(sandbox, async () => {
              const message = await assertRefusal(
                await postGraphql(gateway.url, {
                  query: FLOW_QUERY,
                  variables: { botID: WORLD_IDS.bot3, flowID: groups[0] },
                }, bearer(users.b.jwt)),
                403,
                'ResourceNotAllowed',
              );
              assert.equal(message, 'The flowID in this request belongs to another workspace');
            });
            const own = await postGraphql(gateway.url, {
              query: FLOW_QUERY,
              variables: { botID: WORLD_IDS.bot2, flowID: groups[1] },
            }, bearer(users.a.jwt));
            assert.equal(
              await statusOf(own),
              403,
              'bound to bot 1: bot 2 naming it is refused even for the same account',
            );
            const unknown = await postGraphql(gateway.url, {
              query: FLOW_QUERY,
              variables: { botID: WORLD_IDS.bot3, flowID: 'c'.repeat(24) },
            }, bearer(users.b.jwt));
            assert.equal(await statusOf(unknown), 200, 'bound forwards unknown ids');
          },
        );
      });
    } finally {
      await cluster.stop();
    }
  });
}
