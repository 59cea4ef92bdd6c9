/**
 * createSvcSocket in Chromium through the real relay on both hosts to the sandbox upstream
 * (SPEC "WebSocket close codes", client-side rows): events arrive; a fatal close (4403 passed
 * through from the upstream) is not retried; a retryable close (1012) reconnects and signals
 * onReconnect; an unanswered ping closes 4408 and retries; a clean idle 1000 close gives no
 * refetch signal.
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

        await t.step(`[${kind}] a fatal close (4403 passed through) is not retried`, async () => {
          sandbox.reset();
          sandbox.switches.ws.closeNext = { code: 4403, reason: 'Forbidden', on: 'init' };
          await makeSocket(page, 'fatal');
          await subscribe(page, 'fatal');
          const ended = await until(
            page,
            'fatal',
            (l) => l.errors.length === 1,
            'the subscription fails',
          );
          assert.deepEqual(ended.closes.map((c) => c.code), [4403]);
          assert.equal(ended.errors[0].name, 'SvcApiError');
          assert.match(ended.errors[0].message, /4403/);
          await pause(400); // two backoff ceilings: a retry would have happened by now
          const later = await log(page, 'fatal');
          assert.equal(later.closes.length, 1, 'no second connection');
          assert.equal(sandbox.sockets.length, 1);
        });

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
