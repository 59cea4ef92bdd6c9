/**
 * Session lapses in Chromium against a gate-on gateway on both hosts (the real PostgreSQL
 * fixture behind a PostgREST-compatible endpoint, tests/fixtures/db/; the accounts of
 * tests/gate/helpers.ts): SvcSessionError 'sessionRequired' and 'forbidden' from real answers,
 * onSessionError once per lapse and re-armed by the next clean result (also across the route
 * helpers built from the client, which share its latch), the token read fresh on every attempt,
 * and the socket's gate closes (4401, 4403) fatal.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startSandbox, WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { startBackend } from '../fixtures/db/backend.ts';
import { startPostgres } from '../fixtures/db/postgres.ts';
import { assertNothingReached } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { sandboxEnv } from '../helpers/setup.ts';
import { gateEnv, seedAccounts } from '../gate/helpers.ts';
import { launchBrowser } from './browser.ts';
import { buildDist } from './dist.ts';
import { type CallResult, pageGlobals, type SocketLog } from './page_types.ts';
import { startPageGateway } from './serve.ts';

const BOT = 'query Bot($botID: BotID!) { bot(id: $botID) { id title } }';
const BOOKINGS = 'subscription S($botID: BotID!) { bookingAdded(botID: $botID) { id } }';

function call(page: Page): Promise<CallResult> {
  return page.evaluate(
    ([d, v]) => pageGlobals().svcTest.call('main', d, v, { idempotent: true }),
    [BOT, { botID: WORLD_IDS.bot1 }] as const,
  );
}

const setToken = (page: Page, token: string) =>
  page.evaluate((t) => pageGlobals().svcTest.setToken(t), token);
const lapses = (page: Page) => page.evaluate(() => pageGlobals().svcTest.lapses);

async function socketEnd(page: Page, name: string): Promise<SocketLog> {
  await page.evaluate(([n, q, v]) => {
    pageGlobals().svcTest.makeSocket(n, { retry: { baseMs: 50, capMs: 200 } });
    pageGlobals().svcTest.subscribe(n, q, v);
  }, [name, BOOKINGS, { botID: WORLD_IDS.bot1 }] as const);
  const started = Date.now();
  while (Date.now() - started < 10_000) {
    const log = await page.evaluate((n) => pageGlobals().svcTest.socketLog(n), name);
    if (log.errors.length > 0) {
      await new Promise((r) => setTimeout(r, 400)); // a retry would have happened by now
      return page.evaluate((n) => pageGlobals().svcTest.socketLog(n), name);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`socket ${name} never failed`);
}

Deno.test('client session lapses in Chromium, gate on, both hosts', async (t) => {
  const cluster = await startPostgres();
  const dist = await buildDist();
  const browser = await launchBrowser();
  try {
    for (const kind of HOSTS) {
      const backend = await startBackend(cluster);
      const sandbox = await startSandbox();
      const users = await seedAccounts(backend);
      const env = sandboxEnv(sandbox, gateEnv(backend));
      const gateway = await startPageGateway(kind, env, dist);
      const context = await browser.newContext();
      try {
        const page = await gateway.open(context, '/harness.html');
        await page.evaluate(() => pageGlobals().svcTest.makeClient('main'));

        await t.step(
          `[${kind}] no session: SvcSessionError 'sessionRequired', once per lapse`,
          async () => {
            const first = await assertNothingReached(sandbox, () => call(page));
            assert.equal(first.ok, false);
            const e =
              (first as { error: { name: string; reason: string; status: number; code: string } })
                .error;
            assert.equal(e.name, 'SvcSessionError');
            assert.equal(e.reason, 'sessionRequired');
            assert.equal(e.status, 401);
            assert.equal(e.code, 'AuthSessionRequired');
            await call(page);
            assert.deepEqual(await lapses(page), ['sessionRequired'], 'one signal for one lapse');
          },
        );

        await t.step(
          `[${kind}] the token is read fresh; a clean result re-arms the signal`,
          async () => {
            await setToken(page, users.a.jwt);
            const ok = await call(page);
            assert.deepEqual(ok, {
              ok: true,
              data: { bot: { id: WORLD_IDS.bot1, title: 'Bot 1' } },
            });
            // a signed-in account with no bot naming a bot: forbidden
            await setToken(page, users.c.jwt);
            const forbidden = await assertNothingReached(sandbox, () => call(page));
            const e =
              (forbidden as { error: { name: string; reason: string; status: number } }).error;
            assert.equal(e.name, 'SvcSessionError');
            assert.equal(e.reason, 'forbidden');
            assert.equal(e.status, 403);
            // the session expires: a new lapse after the clean result in between
            await setToken(page, users.a.jwt);
            assert.equal((await call(page)).ok, true);
            await setToken(
              page,
              await backend.rest.mintUserToken(users.a.id, { expSeconds: -120 }),
            );
            const expired = await call(page);
            assert.equal(
              (expired as { error: { reason: string } }).error.reason,
              'sessionRequired',
            );
            assert.deepEqual(await lapses(page), [
              'sessionRequired',
              'forbidden',
              'sessionRequired',
            ]);
          },
        );

        await t.step(
          `[${kind}] route helpers built from a client share its latch: one signal per lapse`,
          async () => {
            await setToken(page, '');
            await page.evaluate(() => {
              pageGlobals().svcTest.lapses.length = 0;
              pageGlobals().svcTest.makeClient('shared');
            });
            const via = (group: 'auth' | 'publishing', method: string, ...args: unknown[]) =>
              page.evaluate(
                ([g, m, a]) => pageGlobals().svcTest.routeVia('shared', g, m, a),
                [group, method, args] as const,
              );
            const during = await assertNothingReached(sandbox, async () => [
              await via('auth', 'provision'),
              await via('publishing', 'posts', WORLD_IDS.bot1),
              await via('auth', 'createBot', 'Another bot'),
              await page.evaluate(
                ([d, v]) => pageGlobals().svcTest.call('shared', d, v),
                [BOT, { botID: WORLD_IDS.bot1 }] as const,
              ),
            ]);
            for (const result of during) {
              assert.equal((result as { error: { name: string } }).error.name, 'SvcSessionError');
            }
            assert.deepEqual(await lapses(page), ['sessionRequired'], 'one signal for the lapse');
            await setToken(page, users.a.jwt);
            const clean = await via('auth', 'provision');
            assert.equal(clean.ok, true, JSON.stringify(clean));
            await setToken(page, '');
            await via('auth', 'provision');
            await via('publishing', 'posts', WORLD_IDS.bot1);
            assert.deepEqual(
              await lapses(page),
              ['sessionRequired', 'sessionRequired'],
              'the clean answer re-armed it: one more signal for the next lapse',
            );
          },
        );

        await t.step(
          `[${kind}] socket: 4401 AuthSessionRequired and 4403 AuthTenantForbidden are fatal`,
          async () => {
            await setToken(page, '');
            const none = await socketEnd(page, 'no-session');
            assert.deepEqual(none.closes, [{ code: 4401, reason: 'AuthSessionRequired' }]);
            assert.equal(none.errors[0].name, 'SvcSessionError');
            assert.equal(none.errors[0].reason, 'sessionRequired');
            await setToken(page, users.c.jwt);
            const noBot = await socketEnd(page, 'no-bot');
            assert.deepEqual(noBot.closes, [{ code: 4403, reason: 'AuthTenantForbidden' }]);
            assert.equal(noBot.errors[0].reason, 'forbidden');
            await setToken(page, users.a.jwt);
            await page.evaluate(([q, v]) => {
              pageGlobals().svcTest.makeSocket('member', {});
              pageGlobals().svcTest.subscribe('member', q, v);
            }, [BOOKINGS, { botID: WORLD_IDS.bot1 }] as const);
            await sandbox.waitFor(
              () => sandbox.sockets.length === 1,
              'the member reached the upstream',
            );
            const started = Date.now();
            let log: SocketLog;
            do {
              log = await page.evaluate(() => pageGlobals().svcTest.socketLog('member'));
            } while (log.completed === 0 && Date.now() - started < 10_000);
            assert.equal(log.events.length, 3, 'the signed-in member gets the events');
          },
        );

        await t.step(
          `[${kind}] auth routes: provision, create a bot, recovery link refused`,
          async () => {
            await setToken(page, users.a.jwt);
            const route = (method: string, ...args: unknown[]) =>
              page.evaluate(
                ([m, a]) => pageGlobals().svcTest.route('auth', m, a),
                [method, args] as const,
              );
            const provisioned = await route('provision');
            assert.equal(provisioned.ok, true, JSON.stringify(provisioned));
            const answer = (provisioned as {
              data: { workspace: { name: string }; bots: { id: string }[]; created: unknown };
            }).data;
            assert.equal(answer.workspace.name, 'Workspace A');
            assert.deepEqual(answer.bots.map((b) => b.id).sort(), [WORLD_IDS.bot1, WORLD_IDS.bot2]);
            assert.equal(answer.created, null, 'idempotent: nothing added');
            const created = await route('createBot', 'Third bot');
            assert.equal(created.ok, true, JSON.stringify(created));
            const bot = (created as { data: { bot: { id: string; name: string } } }).data.bot;
            assert.equal(bot.name, 'Third bot');
            assert.ok(sandbox.world.bot(bot.id), 'the bot exists upstream');
            const blank = await route('createBot', '   ');
            assert.equal((blank as { error: { code: string } }).error.code, 'BadBotName');
            const link = await route('recoveryLink', 'b@example.test');
            const refused =
              (link as { error: { name: string; code: string; status: number } }).error;
            assert.equal(refused.code, 'RecoveryLinkNotEnabled');
            assert.equal(refused.status, 501);
            await setToken(page, '');
            const anonymous = await route('provision');
            assert.equal((anonymous as { error: { name: string } }).error.name, 'SvcSessionError');
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
