/**
 * createSvcClient in Chromium against the real gateway on both hosts and the sandbox upstream
 * (SPEC "Client library error classes"): each error class from a real answer, a network
 * failure, and the retries observed on the wire (count and spacing, with a small base and cap).
 */
import assert from 'node:assert/strict';
import { type Sandbox, startSandbox, upstreamError, WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { assertNothingReached, forwarded } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { sandboxEnv } from '../helpers/setup.ts';
import { launchBrowser } from './browser.ts';
import { buildDist } from './dist.ts';
import { type CallResult, type ErrorFacts, pageGlobals } from './page_types.ts';
import { startPageGateway } from './serve.ts';
import { gaps, recordArrivals, startDroppingListener } from './wire.ts';
import type { Page } from 'playwright-core';

const BOT = 'query Bot($botID: BotID!) { bot(id: $botID) { id title } }';
const FAST = { retries: 2, baseMs: 40, capMs: 400 };

function call(
  page: Page,
  client: string,
  variables: Record<string, unknown>,
  options: { idempotent?: boolean } = {},
): Promise<CallResult> {
  return page.evaluate(
    ([c, d, v, o]) => pageGlobals().svcTest.call(c, d, v, o),
    [client, BOT, variables, options] as const,
  );
}

function failure(result: CallResult): ErrorFacts {
  assert.equal(result.ok, false, `expected a failure, got ${JSON.stringify(result)}`);
  return (result as { error: ErrorFacts }).error;
}

/** Requests of the caller's that reached the sandbox (the fence's own question aside). */
const reached = (sandbox: Sandbox) => forwarded(sandbox).length;

Deno.test('client HTTP in Chromium, both hosts', async (t) => {
  const dist = await buildDist();
  const browser = await launchBrowser();
  try {
    for (const kind of HOSTS) {
      const sandbox = await startSandbox();
      const gateway = await startPageGateway(kind, sandboxEnv(sandbox), dist);
      const arrivals = recordArrivals(sandbox);
      const context = await browser.newContext();
      const page = await gateway.open(context, '/harness.html');
      const bot1 = { botID: WORLD_IDS.bot1 };
      const fresh = () => {
        sandbox.reset();
        arrivals.length = 0;
      };
      try {
        await page.evaluate((retry) => {
          pageGlobals().svcTest.makeClient('main', { retry });
          pageGlobals().svcTest.makeClient('default');
        }, FAST);

        await t.step(`[${kind}] same-origin default URL; data comes back typed`, async () => {
          const result = await call(page, 'default', bot1);
          assert.deepEqual(result, {
            ok: true,
            data: { bot: { id: WORLD_IDS.bot1, title: 'Bot 1' } },
          });
          const sent = forwarded(sandbox).at(-1)!;
          assert.equal(sent.operations[0].operationName, 'Bot');
        });

        await t.step(
          `[${kind}] upstream GraphQL error: SvcGraphQLError, never retried`,
          async () => {
            fresh();
            sandbox.switches.errors = { errors: upstreamError('BotDoesNotExist', 'no such bot') };
            const e = failure(await call(page, 'main', bot1, { idempotent: true }));
            assert.deepEqual(e.classChain.slice(0, 3), ['SvcGraphQLError', 'SvcApiError', 'Error']);
            assert.equal(e.code, 'BotDoesNotExist');
            assert.equal(e.status, 200);
            assert.equal(e.isPermissionDenied, false);
            assert.equal(reached(sandbox), 1);
          },
        );

        await t.step(
          `[${kind}] gateway refusal: SvcGraphQLError, permission denied, nothing reached`,
          async () => {
            fresh();
            const e = await assertNothingReached(
              sandbox,
              async () =>
                failure(
                  await call(page, 'main', { botID: 'b0000000000000000000ffff' }, {
                    idempotent: true,
                  }),
                ),
            );
            assert.equal(e.name, 'SvcGraphQLError');
            assert.equal(e.code, 'BotNotAllowed');
            assert.equal(e.status, 403);
            assert.equal(e.isPermissionDenied, true);
          },
        );

        await t.step(
          `[${kind}] Unauthorized from the upstream: SvcAuthError, never retried`,
          async () => {
            fresh();
            sandbox.switches.errors = {
              errors: [{
                message: 'Failed',
                extensions: {
                  code: 'SubgraphError',
                  errors: [{ message: 'x', extensions: { code: 'Unauthorized' } }],
                },
              }],
            };
            const e = failure(await call(page, 'main', bot1, { idempotent: true }));
            assert.deepEqual(e.classChain.slice(0, 3), [
              'SvcAuthError',
              'SvcGraphQLError',
              'SvcApiError',
            ]);
            assert.equal(e.code, 'Unauthorized', 'nested code read first');
            assert.equal(reached(sandbox), 1);
          },
        );

        await t.step(
          `[${kind}] 502 without envelope: SvcHttpError; retried only when idempotent`,
          async () => {
            fresh();
            const body = `<html>${'bad gateway '.repeat(40)}</html>`;
            sandbox.switches.status = { status: 502, body, contentType: 'text/html' };
            const plain = failure(await call(page, 'main', bot1));
            assert.equal(plain.name, 'SvcHttpError');
            assert.equal(plain.status, 502);
            assert.equal(plain.bodySnippet, body.slice(0, 200));
            assert.ok(!plain.message.includes('bad gateway'), 'the snippet stays off the message');
            assert.equal(reached(sandbox), 1, 'not idempotent: one attempt');
            fresh();
            sandbox.switches.status = { status: 502, body, contentType: 'text/html' };
            failure(await call(page, 'main', bot1, { idempotent: true }));
            assert.equal(reached(sandbox), 3, 'idempotent: the first attempt and two retries');
            const [first, second] = gaps(arrivals);
            assert.ok(first >= 20, `first wait at least half of 40 ms, was ${first}`);
            assert.ok(second >= 40, `second wait at least half of 80 ms, was ${second}`);
          },
        );

        await t.step(`[${kind}] 429: SvcHttpError, retried even when not idempotent`, async () => {
          fresh();
          sandbox.switches.status = { status: 429, body: 'slow down' };
          const e = failure(await call(page, 'main', bot1));
          assert.equal(e.name, 'SvcHttpError');
          assert.equal(e.status, 429);
          assert.equal(reached(sandbox), 3);
          assert.ok(gaps(arrivals).every((g) => g >= 20), `gaps ${gaps(arrivals)}`);
          fresh();
          sandbox.switches.status = { status: 429, body: 'slow down' };
          sandbox.switches.delays = [];
          // the third attempt succeeds: the switch is lifted after the second arrival
          const pending = call(page, 'main', bot1);
          await sandbox.waitFor(() => reached(sandbox) >= 2, 'second attempt');
          sandbox.switches.status = null;
          const result = await pending;
          assert.equal(result.ok, true, JSON.stringify(result));
          assert.equal(reached(sandbox), 3);
        });

        await t.step(
          `[${kind}] upstream dropped: 504 ProxyUpstreamUnavailable envelope, retried when idempotent`,
          async () => {
            fresh();
            sandbox.switches.drop = {};
            const plain = failure(await call(page, 'main', bot1));
            assert.equal(plain.name, 'SvcGraphQLError');
            assert.equal(plain.code, 'ProxyUpstreamUnavailable');
            assert.equal(plain.status, 504);
            // the gateway's own HTTP client may send a dropped request again (a pooled
            // connection found closed), so the upstream sees one or two per attempt
            const once = reached(sandbox);
            assert.ok(once >= 1 && once <= 2, `one attempt reached ${once} times`);
            fresh();
            sandbox.switches.drop = {};
            const e = failure(await call(page, 'main', bot1, { idempotent: true }));
            assert.equal(e.code, 'ProxyUpstreamUnavailable');
            const n = reached(sandbox);
            assert.ok(n >= 3 && n <= 6, `three attempts reached ${n} times`);
          },
        );

        await t.step(
          `[${kind}] network failure (gateway gone): SvcNetworkError with its cause; retried when idempotent`,
          async () => {
            // the gateway goes away and its port drops every connection: the page's own
            // origin (its content-security-policy allows connecting to itself only)
            await gateway.stop();
            const dropping = startDroppingListener(Number(new URL(gateway.url).port));
            try {
              const plain = failure(await call(page, 'main', bot1));
              assert.equal(plain.name, 'SvcNetworkError');
              assert.equal(plain.hasCause, true);
              const once = dropping.connections.length;
              assert.ok(once >= 1, 'the attempt reached the listener');
              dropping.connections.length = 0;
              const idem = failure(await call(page, 'main', bot1, { idempotent: true }));
              assert.equal(idem.name, 'SvcNetworkError');
              assert.ok(
                dropping.connections.length >= 3 * once,
                `three attempts reached the listener (${dropping.connections.length} connections, ${once} per attempt)`,
              );
            } finally {
              dropping.close();
            }
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
