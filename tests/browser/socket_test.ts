/**
 * createSvcSocket in Chromium through the real relay on both hosts to the sandbox upstream
 * (SPEC "WebSocket close codes", client-side rows): events arrive; each fatal close (4400,
 * 4401, 4403, 4406, 4409, 4429 passed through from the upstream) is not retried and errors the
 * sink once; every other close
 * reconnects, signals onReconnect and subscribes again: 1012, and the upstream's 4500 and 4005
 * that graphql-ws alone would give up on; the backoff ends early on the browser's `online`
 * event; an unanswered ping closes 4408 and retries; a clean idle 1000 close gives no refetch
 * signal.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startSandbox, WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { sandboxEnv } from '../helpers/setup.ts';
import { launchBrowser } from './browser.ts';
import { buildDist } from './dist.ts';
import { pageGlobals, type SocketLog } from './page_types.ts';
import { startPageGateway } from './serve.ts';

const BOOKINGS = 'subscription S($botID: BotID!) { bookingAdded(botID: $botID) { id } }';
const FAST = { retry: { baseMs: 50, capMs: 200 } };

function makeSocket(page: Page, name: string, options: Record<string, unknown> = FAST) {
  return page.evaluate(
    ([n, o]) => pageGlobals().svcTest.makeSocket(n, o),
    [name, options] as const,
  );
}

function subscribe(page: Page, name: string) {
  return page.evaluate(
    ([n, q, v]) => pageGlobals().svcTest.subscribe(n, q, v),
    [name, BOOKINGS, { botID: WORLD_IDS.bot1 }] as const,
  );
}

function log(page: Page, name: string): Promise<SocketLog> {
  return page.evaluate((n) => pageGlobals().svcTest.socketLog(n), name);
}

async function until(page: Page, name: string, check: (l: SocketLog) => boolean, what: string) {
  const started = Date.now();
  while (true) {
    const current = await log(page, name);
    if (check(current)) return current;
    if (Date.now() - started > 10_000) {
      throw new Error(`timed out waiting: ${what}; log ${JSON.stringify(current)}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test('client socket in Chromium, both hosts', async (t) => {
  const dist = await buildDist();
  const browser = await launchBrowser();
  try {
    for (const kind of HOSTS) {
      const sandbox = await startSandbox();
      const gateway = await startPageGateway(kind, sandboxEnv(sandbox), dist);
      const context = await browser.newContext();
      try {
        const page = await gateway.open(context, '/harness.html');

        await t.step(
          `[${kind}] events arrive; a clean idle 1000 close gives no refetch signal`,
          async () => {
            await makeSocket(page, 'idle');
            await subscribe(page, 'idle');
            const first = await until(
              page,
              'idle',
              (l) => l.completed === 1 && l.closes.length === 1,
              'complete, then the lazy close',
            );
            assert.equal(first.events.length, 3);
            assert.deepEqual(
              first.closes.map((c) => c.code),
              [1000],
            );
            await subscribe(page, 'idle');
            const second = await until(
              page,
              'idle',
              (l) => l.completed === 2,
              'second subscription',
            );
            assert.equal(second.connected, 2);
            assert.equal(second.reconnects, 0, 'no refetch after a clean idle close');
            assert.equal(
              sandbox.sockets[0].initPayload && typeof sandbox.sockets[0].initPayload,
              'object',
            );
          },
        );

        await t.step(
          `[${kind}] a retryable close (1012) reconnects and signals onReconnect`,
          async () => {
            sandbox.reset();
            sandbox.switches.stream = { count: 1, tickMs: 10, complete: false };
            await makeSocket(page, 'live');
            await subscribe(page, 'live');
            await until(page, 'live', (l) => l.events.length === 1, 'first event');
            assert.equal(sandbox.closeSockets(1011, 'upstream restarting'), 1);
            const after = await until(
              page,
              'live',
              (l) => l.reconnects === 1 && l.events.length === 2,
              'reconnect and re-subscribe',
            );
            assert.deepEqual(
              after.closes.map((c) => c.code),
              [1012],
            );
            assert.equal(after.errors.length, 0);
            assert.equal(sandbox.sockets.length, 2, 'a second upstream socket');
            await page.evaluate((n) => pageGlobals().svcTest.disposeSocket(n), 'live');
          },
        );

        for (const [code, how] of [[4500, 'mid-stream'], [4005, 'on subscribe']] as const) {
          await t.step(
            `[${kind}] an upstream ${code} passed through (${how}): reconnects, receives again`,
            async () => {
              sandbox.reset();
              sandbox.switches.stream = { count: 1, tickMs: 10, complete: false };
              if (how === 'on subscribe') {
                sandbox.switches.ws.closeNext = {
                  code,
                  reason: 'upstream trouble',
                  on: 'subscribe',
                };
              }
              const name = `restart-${code}`;
              await makeSocket(page, name);
              await subscribe(page, name);
              if (how === 'mid-stream') {
                await until(page, name, (l) => l.events.length === 1, 'first event');
                assert.equal(sandbox.closeSockets(code, 'upstream trouble'), 1);
              }
              const after = await until(
                page,
                name,
                (l) => l.reconnects === 1 && l.events.length === (how === 'mid-stream' ? 2 : 1),
                'reconnect, re-subscribe and receive',
              );
              assert.deepEqual(after.closes, [{ code, reason: 'upstream trouble' }]);
              assert.equal(after.errors.length, 0, 'the app saw no error');
              assert.equal(after.completed, 0);
              assert.equal(sandbox.sockets.length, 2, 'a second upstream socket');
              assert.equal(sandbox.sockets[1].subscribes.length, 1, 'subscribed again, once');
              await page.evaluate((n) => pageGlobals().svcTest.disposeSocket(n), name);
            },
          );
        }

        await t.step(
          `[${kind}] after a 4500 the live subscriptions return on one socket, an ended one not`,
          async () => {
            sandbox.reset();
            sandbox.switches.stream = { count: 1, tickMs: 10, complete: false };
            // a ten-minute backoff, ended by the online event once the third one has ended
            await makeSocket(page, 'three', { retry: { baseMs: 600_000, capMs: 600_000 } });
            for (let i = 0; i < 3; i++) await subscribe(page, 'three');
            await until(page, 'three', (l) => l.events.length === 3, 'one event each');
            assert.equal(sandbox.closeSockets(4500, 'upstream trouble'), 1);
            await until(page, 'three', (l) => l.closes.length === 1, 'the close');
            await page.evaluate((n) => pageGlobals().svcTest.unsubscribeLast(n), 'three');
            await context.setOffline(true);
            await context.setOffline(false);
            const after = await until(
              page,
              'three',
              (l) => l.events.length === 5 && l.reconnects === 1,
              'the two live ones receive again',
            );
            assert.equal(after.completed, 1, 'the ended one completed once');
            assert.equal(after.errors.length, 0);
            assert.equal(sandbox.sockets.length, 2, 'one new socket for both');
            assert.equal(sandbox.sockets[1].subscribes.length, 2, 'each subscribed again, once');
            await pause(100);
            assert.equal((await log(page, 'three')).events.length, 5, 'nothing duplicated');
            await page.evaluate((n) => pageGlobals().svcTest.disposeSocket(n), 'three');
          },
        );

        await t.step(`[${kind}] the backoff ends early on the browser's online event`, async () => {
          sandbox.reset();
          sandbox.switches.stream = { count: 1, tickMs: 10, complete: false };
          // a ten-minute backoff: only the online event can end the wait within this test
          await makeSocket(page, 'online', { retry: { baseMs: 600_000, capMs: 600_000 } });
          await subscribe(page, 'online');
          await until(page, 'online', (l) => l.events.length === 1, 'first event');
          // both waits: the restart after a close graphql-ws gives up on, and its own retry
          for (const [code, events] of [[4500, 2], [1011, 3]]) {
            const sockets = sandbox.sockets.length;
            assert.equal(sandbox.closeSockets(code, 'upstream trouble'), 1);
            await until(page, 'online', (l) => l.closes.length === events - 1, 'the close');
            await pause(100);
            assert.equal(sandbox.sockets.length, sockets, 'still waiting out the backoff');
            await context.setOffline(true);
            await context.setOffline(false);
            await until(page, 'online', (l) => l.events.length === events, 'back online');
            assert.equal(sandbox.sockets.length, sockets + 1);
          }
          const log = await page.evaluate((n) => pageGlobals().svcTest.socketLog(n), 'online');
          assert.deepEqual(log.closes.map((c) => c.code), [4500, 1012]);
          assert.equal(log.errors.length, 0);
          await page.evaluate((n) => pageGlobals().svcTest.disposeSocket(n), 'online');
        });

        await t.step(
          `[${kind}] the six fatal closes (passed through) are not retried; one error each`,
          async () => {
            sandbox.reset();
            const codes = [4400, 4401, 4403, 4406, 4409, 4429];
            for (const code of codes) {
              sandbox.switches.ws.closeNext = { code, reason: 'refused', on: 'init' };
              await makeSocket(page, `fatal-${code}`);
              await subscribe(page, `fatal-${code}`);
              const ended = await until(
                page,
                `fatal-${code}`,
                (l) => l.errors.length === 1,
                `the subscription fails on ${code}`,
              );
              assert.deepEqual(ended.closes, [{ code, reason: 'refused' }]);
              assert.equal(ended.errors[0].name, 'SvcApiError');
              assert.match(ended.errors[0].message, new RegExp(`${code}`));
            }
            await pause(400); // two backoff ceilings: a retry would have happened by now
            for (const code of codes) {
              const later = await log(page, `fatal-${code}`);
              assert.equal(later.closes.length, 1, `${code}: no second connection`);
              assert.equal(later.errors.length, 1, `${code}: the error reached the app once`);
              assert.equal(later.completed, 0);
              assert.equal(later.reconnects, 0);
            }
            assert.equal(sandbox.sockets.length, codes.length);
          },
        );

        await t.step(
          `[${kind}] an unanswered ping closes 4408 and the socket retries`,
          async () => {
            sandbox.reset();
            sandbox.switches.stream = { count: 0, tickMs: 10, complete: false };
            sandbox.switches.ws.ignorePings = true;
            await makeSocket(page, 'dead', { ...FAST, keepAliveMs: 100, pingTimeoutMs: 150 });
            await subscribe(page, 'dead');
            const closed = await until(
              page,
              'dead',
              (l) => l.closes.length >= 1,
              'the ping timeout',
            );
            assert.deepEqual(closed.closes[0], { code: 4408, reason: 'Request Timeout' });
            await sandbox.waitFor(
              () => sandbox.sockets.length >= 2,
              'a retry reached the upstream',
            );
            sandbox.switches.ws.ignorePings = false;
            const healed = await until(page, 'dead', (l) => l.reconnects >= 1, 'reconnected');
            assert.equal(healed.errors.length, 0, 'the subscription survived');
            await page.evaluate((n) => pageGlobals().svcTest.disposeSocket(n), 'dead');
          },
        );
      } finally {
        await context.close();
        await gateway.stop();
        await sandbox.close();
      }
    }
  } finally {
    await browser.close();
    await Deno.remove(dist, { recursive: true });
  }
});
