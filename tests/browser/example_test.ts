/**
 * The example app (examples/app/, plain HTML + the client) in Chromium, served by the Node
 * host's static serving (and, on the Deno host, from the same dist by request routing), with
 * the session gate on over the real PostgreSQL fixture: it signs in with a test session,
 * queries, subscribes, and shows refusals as sentences.
 */
import assert from 'node:assert/strict';
import { startSandbox, WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { startBackend } from '../fixtures/db/backend.ts';
import { startPostgres } from '../fixtures/db/postgres.ts';
import { assertNothingReached } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { sandboxEnv } from '../helpers/setup.ts';
import { gateEnv, seedAccounts } from '../gate/helpers.ts';
import { launchBrowser } from './browser.ts';
import { buildDist } from './dist.ts';
import { startPageGateway } from './serve.ts';

Deno.test('example app in Chromium, gate on, both hosts', async (t) => {
  const cluster = await startPostgres();
  const dist = await buildDist();
  const browser = await launchBrowser();
  try {
    for (const kind of HOSTS) {
      const backend = await startBackend(cluster);
      const sandbox = await startSandbox();
      const users = await seedAccounts(backend);
      const gateway = await startPageGateway(kind, sandboxEnv(sandbox, gateEnv(backend)), dist);
      const context = await browser.newContext();
      try {
        const page = await gateway.open(context, '/');
        await page.waitForSelector('#session[data-ready="true"]');

        await t.step(`[${kind}] signs in, queries, subscribes`, async () => {
          await page.fill('#token', users.a.jwt);
          await page.click('#sign-in-button');
          assert.equal(await page.textContent('#session'), 'signed in');
          await page.click('#query');
          await page.waitForFunction(() =>
            (globalThis as unknown as {
              document: { getElementById(id: string): { textContent: string } };
            })
              .document.getElementById('result').textContent !== ''
          );
          assert.deepEqual(JSON.parse((await page.textContent('#result'))!), {
            bot: { id: WORLD_IDS.bot1, title: 'Bot 1' },
          });
          await page.click('#subscribe');
          await page.waitForSelector('#events[data-complete="true"]');
          assert.equal(await page.locator('#events li').count(), 3);
        });

        await t.step(
          `[${kind}] shows a refusal as a sentence; nothing reached the upstream`,
          async () => {
            await assertNothingReached(sandbox, async () => {
              await page.click('#refused');
              await page.waitForSelector('#refusal[data-code="BotNotAllowed"]');
            });
            assert.equal(
              await page.textContent('#refusal'),
              'That bot belongs to another workspace.',
            );
          },
        );

        await t.step(
          `[${kind}] a lapsed session is shown once and asks to sign in again`,
          async () => {
            const expired = await backend.rest.mintUserToken(users.a.id, { expSeconds: -120 });
            await page.fill('#token', expired);
            await page.click('#sign-in-button');
            await page.click('#query');
            await page.waitForSelector('#refusal[data-code="AuthSessionRequired"]');
            assert.equal(await page.textContent('#refusal'), 'Please sign in again.');
            assert.equal(await page.textContent('#session'), 'session lapsed (sessionRequired)');
          },
        );
      } finally {
        await context.close();
        await gateway.stop();
        await sandbox.close();
        await backend.stop();
      }
    }
  } finally {
    await browser.close();
    await Deno.remove(dist, { recursive: true });
    await cluster.stop();
  }
});
