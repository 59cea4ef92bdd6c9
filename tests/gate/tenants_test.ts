/**
 * Step 4 over HTTP on both hosts (SPEC "Ceilings" tenant rows, "Size and capacity"): a tenant
 * is named by its fence, not its session; the no-bot bucket is shared at a tenth of the rate;
 * batches count once; with the gate off and a fence the deployment is one tenant, and without a
 * fence nobody is limited. 429 TenantBusy with retry-after: 5 reaches nothing upstream.
 */
import assert from 'node:assert/strict';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { startPostgres } from '../fixtures/db/postgres.ts';
import { assertNothingReached, assertRefusal, postGraphql } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';
import { BOT_QUERY, statusOf, withGateOn } from './helpers.ts';

const ME = { query: '{ currentUser { id } }' };

/** Asserts 429 TenantBusy with retry-after: 5 and nothing forwarded. */
async function assertTenantBusy(res: Response): Promise<void> {
  assert.equal(res.headers.get('retry-after'), '5');
  await assertRefusal(res, 429, 'TenantBusy');
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] tenants with the gate on`, async (t) => {
    const cluster = await startPostgres();
    try {
      await t.step(
        'a tenant is its bot set: a fresh sign-in shares the minute; batches count once',
        async () => {
          const env = { TENANT_REQUESTS_PER_MINUTE: '3' };
          await withGateOn(
            kind,
            cluster,
            { env },
            async ({ sandbox, backend, gateway, users, bearer }) => {
              const again = await backend.rest.mintUserToken(users.a.id, { expSeconds: 1200 });
              const batch = [1, 2, 3].map(() => ({
                query: BOT_QUERY,
                variables: { botID: WORLD_IDS.bot1 },
              }));
              assert.equal(
                await statusOf(await postGraphql(gateway.url, batch, bearer(users.a.jwt))),
                200,
              );
              assert.equal(
                await statusOf(await postGraphql(gateway.url, ME, bearer(users.a.jwt))),
                200,
              );
              assert.equal(await statusOf(await postGraphql(gateway.url, ME, bearer(again))), 200);
              await assertNothingReached(sandbox, async () => {
                await assertTenantBusy(await postGraphql(gateway.url, ME, bearer(again)));
                await assertTenantBusy(await postGraphql(gateway.url, ME, bearer(users.a.jwt)));
              });
              assert.equal(
                await statusOf(await postGraphql(gateway.url, ME, bearer(users.b.jwt))),
                200,
                'another tenant has its own minute',
              );
            },
          );
        },
      );

      await t.step('accounts with no bot share one bucket at a tenth of the rate', async () => {
        const env = { TENANT_REQUESTS_PER_MINUTE: '20' };
        await withGateOn(
          kind,
          cluster,
          { env },
          async ({ sandbox, backend, gateway, users, bearer }) => {
            const d = await backend.seed.createUser('d@example.test');
            const dJwt = await backend.rest.mintUserToken(d);
            assert.equal(
              await statusOf(await postGraphql(gateway.url, ME, bearer(users.c.jwt))),
              200,
            );
            assert.equal(await statusOf(await postGraphql(gateway.url, ME, bearer(dJwt))), 200);
            await assertNothingReached(sandbox, async () => {
              await assertTenantBusy(await postGraphql(gateway.url, ME, bearer(users.c.jwt)));
              await assertTenantBusy(await postGraphql(gateway.url, ME, bearer(dJwt)));
            });
            assert.equal(
              await statusOf(await postGraphql(gateway.url, ME, bearer(users.a.jwt))),
              200,
            );
          },
        );
      });
    } finally {
      await cluster.stop();
    }
  });

  Deno.test(`[${kind}] gate off: the deployment is one tenant; without a fence nobody is limited`, async () => {
    const env = { TENANT_REQUESTS_PER_MINUTE: '2' };
    const options = { allowedBotIds: [WORLD_IDS.bot1] };
    await withGateway(kind, { env, options }, async ({ sandbox, gateway }) => {
      assert.equal(await statusOf(await postGraphql(gateway.url, ME)), 200);
      assert.equal(
        await statusOf(await postGraphql(gateway.url, ME, { authorization: 'Bearer other' })),
        200,
      );
      await assertNothingReached(sandbox, async () => {
        await assertTenantBusy(await postGraphql(gateway.url, ME));
        const form = new FormData();
        form.append('file', new Blob(['x']), 'x.txt');
        await assertTenantBusy(
          await fetch(`${gateway.url}/svc/api/filestorage/upload/bot?botID=${WORLD_IDS.bot1}`, {
            method: 'POST',
            body: form,
          }),
        );
      });
    });
    await withGateway(kind, { env, options: { allowedBotIds: 'any' } }, async ({ gateway }) => {
      for (let i = 0; i < 5; i++) {
        assert.equal(await statusOf(await postGraphql(gateway.url, ME)), 200);
      }
    });
  });
}
