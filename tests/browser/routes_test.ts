/**
 * The typed route calls in Chromium on both hosts (SPEC "Route table": a route that is not
 * mounted is not claimed, the host answers 404, clients read absence): on a deployment without
 * the optional groups every call is SvcNotAvailableError; with ADMIN_PASSWORD the panel's
 * calls unlock, read the upstream account behind the token, and sign out, and a refusal keeps
 * its code.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startSandbox, WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { sandboxEnv } from '../helpers/setup.ts';
import { launchBrowser } from './browser.ts';
import { buildDist } from './dist.ts';
import { type CallResult, type ErrorFacts, pageGlobals } from './page_types.ts';
import { startPageGateway } from './serve.ts';

const PASSWORD = 'a-long-admin-password-for-tests';

function route(
  page: Page,
  group: 'auth' | 'admin' | 'publishing',
  method: string,
  ...args: unknown[]
) {
  return page.evaluate(
    ([g, m, a]) => pageGlobals().svcTest.route(g, m, a),
    [group, method, args] as const,
  );
}

function failure(result: CallResult): ErrorFacts {
  assert.equal(result.ok, false, JSON.stringify(result));
  return (result as { error: ErrorFacts }).error;
}

function data<T>(result: CallResult): T {
  assert.equal(result.ok, true, JSON.stringify(result));
  return (result as { data: T }).data;
}

Deno.test('client route calls in Chromium, both hosts', async (t) => {
  const dist = await buildDist();
  const browser = await launchBrowser();
  try {
    for (const kind of HOSTS) {
      const sandbox = await startSandbox();
      const bare = await startPageGateway(kind, sandboxEnv(sandbox), dist);
      const context = await browser.newContext();
      try {
        const page = await bare.open(context, '/harness.html');
        await t.step(
          `[${kind}] optional groups absent: SvcNotAvailableError, nothing reached`,
          async () => {
            const calls: [Parameters<typeof route>[1], string, unknown[]][] = [
              ['auth', 'provision', []],
              ['auth', 'createBot', ['x']],
              ['auth', 'recoveryLink', ['a@example.test']],
              ['publishing', 'config', []],
              ['publishing', 'posts', [WORLD_IDS.bot1]],
              ['admin', 'session', []],
              ['admin', 'overview', []],
            ];
            for (const [group, method, args] of calls) {
              const e = failure(await route(page, group, method, ...args));
              assert.equal(e.name, 'SvcNotAvailableError', `${group}.${method}`);
              // the Node host's static half: 405 for a POST, index.html for a GET; Deno: 404
              assert.ok([404, 405, 200].includes(e.status!), `status ${e.status}`);
              assert.match(e.message, /not available on this deployment/);
            }
            assert.equal(sandbox.received.length, 0);
          },
        );
      } finally {
        await context.close();
        await bare.stop();
      }
      const admin = await startPageGateway(
        kind,
        sandboxEnv(sandbox, { ADMIN_PASSWORD: PASSWORD }),
        dist,
      );
      const adminContext = await browser.newContext();
      try {
        const page = await admin.open(adminContext, '/harness.html');
        await t.step(
          `[${kind}] admin panel: locked, wrong password, unlock, overview, health, sign out`,
          async () => {
            const locked = failure(await route(page, 'admin', 'overview'));
            assert.equal(locked.name, 'SvcGraphQLError');
            assert.equal(locked.code, 'AdminSessionRequired');
            assert.equal(locked.status, 401);
            const wrong = failure(await route(page, 'admin', 'unlock', 'not-the-password-at-all'));
            assert.equal(wrong.code, 'AdminBadPassword');
            assert.ok(!JSON.stringify(wrong).includes(PASSWORD));
            assert.equal(
              data<{ unlocked: boolean }>(await route(page, 'admin', 'unlock', PASSWORD)).unlocked,
              true,
            );
            assert.equal(
              data<{ unlocked: boolean }>(await route(page, 'admin', 'session')).unlocked,
              true,
            );
            const overview = data<{ workspaces: { id: string }[] }>(
              await route(page, 'admin', 'overview'),
            );
            assert.deepEqual(overview.workspaces.map((w) => w.id).sort(), [
              WORLD_IDS.workspaceA,
              WORLD_IDS.workspaceB,
            ]);
            const health = data<{ token: { works: boolean }; gate: string }>(
              await route(page, 'admin', 'health'),
            );
            assert.equal(health.token.works, true);
            assert.equal(health.gate, 'off');
            const missing = failure(await route(page, 'admin', 'workspace', 'no such id!'));
            assert.equal(missing.code, 'AdminWorkspaceNotFound');
            assert.equal(missing.status, 404, 'a 404 with an envelope is a refusal, not absence');
            assert.equal(
              data<{ unlocked: boolean }>(await route(page, 'admin', 'signOut')).unlocked,
              false,
            );
            assert.equal(
              failure(await route(page, 'admin', 'overview')).code,
              'AdminSessionRequired',
            );
          },
        );
      } finally {
        await adminContext.close();
        await admin.stop();
        await sandbox.close();
      }
    }
  } finally {
    await browser.close();
    await Deno.remove(dist, { recursive: true });
  }
});
