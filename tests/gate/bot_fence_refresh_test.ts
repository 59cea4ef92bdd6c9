/**
 * The request-time bot fence with the gate off (SPEC "Bot fence": "bots of the deployment's
 * upstream account, cached 60 s, retry 5 s, fetch timeout 10 s"; "Errors": ProxyFenceUnavailable
 * "a stale answer is served with a short retry window"), against the sandbox upstream over real
 * HTTP. The fence's clock is the `now` seam of createBotFence, so the 60 s and 5 s are the
 * resolved defaults read against a clock the test moves; what is asserted is what reached the
 * upstream (how many SvcWorkspaceBots asks) and what the fence answered, never a duration. The
 * 10 s deadline is the default of option `fence.timeoutMs`, which is given a short value to watch
 * a silent upstream be given up on.
 */
import assert from 'node:assert/strict';
import { type Sandbox, SANDBOX_TOKEN, startSandbox, WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { createBotFence, type FenceAnswer } from '../../src/admission/bot_fence.ts';
import type { SvcProxyOptions } from '../../src/proxy_options.ts';
import { resolveConfig } from '../../src/config/resolve.ts';

const ASK = '?op=SvcWorkspaceBots';
const asks = (sandbox: Sandbox) => sandbox.received.filter((r) => r.search === ASK).length;

async function withSandbox(body: (sandbox: Sandbox) => Promise<void>): Promise<void> {
  const sandbox = await startSandbox();
  try {
    await body(sandbox);
  } finally {
    await sandbox.close();
  }
}

/** A fence over the sandbox with a clock the test moves (starts at 1,000,000 ms). */
function fenceOver(sandbox: Sandbox, options: SvcProxyOptions = {}) {
  const clock = { now: 1_000_000 };
  const config = resolveConfig(options, { SVC_TOKEN: SANDBOX_TOKEN, SVC_API_BASE: sandbox.url });
  const fence = createBotFence(config, fetch, () => clock.now);
  return { fence, clock, config };
}

/** The sandbox answers the fence's ask with one workspace holding `bots`. */
function answerBots(sandbox: Sandbox, bots: string[]): void {
  sandbox.switches.status = {
    status: 200,
    contentType: 'application/json',
    body: JSON.stringify({
      data: { currentUser: { workspaces: [{ id: 'w1', bots: bots.map((id) => ({ id })) }] } },
    }),
    match: { operationName: 'SvcWorkspaceBots' },
  };
}

function bots(answer: FenceAnswer): string[] {
  assert.ok(answer instanceof Set, `expected a bot set, got ${String(answer)}`);
  return [...answer].sort();
}

Deno.test('the fence tuning defaults to 60 s cache, 5 s retry, 10 s fetch; option fence sets it', () => {
  const env = { SVC_TOKEN: 't' };
  assert.deepEqual(resolveConfig({}, env).fence, {
    ttlMs: 60_000,
    retryMs: 5_000,
    timeoutMs: 10_000,
  });
  assert.deepEqual(resolveConfig({ fence: { timeoutMs: 250 } }, env).fence?.timeoutMs, 250);
  assert.equal(resolveConfig({}, {}).fence, null, 'exists only when a token does');
});

Deno.test('after a failed ask the fence asks again 5 s later, not before', async () => {
  await withSandbox(async (sandbox) => {
    const { fence, clock } = fenceOver(sandbox);
    sandbox.switches.status = { status: 500, match: { operationName: 'SvcWorkspaceBots' } };
    assert.equal(await fence.resolve(), 'unavailable');
    assert.equal(asks(sandbox), 1);
    clock.now += 4_999;
    assert.equal(await fence.resolve(), 'unavailable', 'still inside the retry window');
    assert.equal(asks(sandbox), 1, 'no ask inside the 5 s');
    sandbox.switches.status = null;
    clock.now += 1;
    assert.deepEqual(bots(await fence.resolve()), [WORLD_IDS.bot1, WORLD_IDS.bot2, WORLD_IDS.bot3]);
    assert.equal(asks(sandbox), 2, 'asked again at 5 s');
  });
});

Deno.test('a stale answer is served while one ask refreshes it', async () => {
  await withSandbox(async (sandbox) => {
    const { fence, clock } = fenceOver(sandbox);
    answerBots(sandbox, [WORLD_IDS.bot1]);
    assert.deepEqual(bots(await fence.resolve()), [WORLD_IDS.bot1]);
    clock.now += 59_999;
    assert.deepEqual(bots(fence.resolve() as FenceAnswer), [WORLD_IDS.bot1], 'fresh: no promise');
    assert.equal(asks(sandbox), 1, 'cached for 60 s');

    // past 60 s: the refresh is held by the upstream while callers keep getting the stale set
    answerBots(sandbox, [WORLD_IDS.bot2]);
    sandbox.switches.delays = [{ ms: 400, match: { operationName: 'SvcWorkspaceBots' } }];
    clock.now += 1;
    for (let i = 0; i < 3; i++) {
      const answer = fence.resolve();
      assert.ok(!(answer instanceof Promise), 'a stale answer is served at once');
      assert.deepEqual(bots(answer), [WORLD_IDS.bot1]);
    }
    await sandbox.waitFor(() => asks(sandbox) === 2, 'the refresh');
    assert.deepEqual(bots(fence.resolve() as FenceAnswer), [WORLD_IDS.bot1], 'still refreshing');
    await sandbox.waitFor(() => {
      const answer = fence.resolve();
      return answer instanceof Set && answer.has(WORLD_IDS.bot2);
    }, 'the refreshed set');
    assert.deepEqual(bots(fence.resolve() as FenceAnswer), [WORLD_IDS.bot2]);
    assert.equal(asks(sandbox), 2, 'one ask refreshed it, whoever asked meanwhile');

    // a refresh that fails keeps serving the stale set and waits the retry window
    sandbox.switches.delays = [];
    sandbox.switches.status = { status: 500, match: { operationName: 'SvcWorkspaceBots' } };
    clock.now += 60_000;
    assert.deepEqual(bots(fence.resolve() as FenceAnswer), [WORLD_IDS.bot2]);
    await sandbox.waitFor(() => asks(sandbox) === 3, 'the failed refresh');
    await new Promise((r) => setTimeout(r, 50));
    clock.now += 4_999;
    assert.deepEqual(bots(fence.resolve() as FenceAnswer), [WORLD_IDS.bot2]);
    assert.equal(asks(sandbox), 3, 'no ask inside the retry window');
  });
});

Deno.test('an ask the upstream does not answer is given up at the fetch deadline', async () => {
  await withSandbox(async (sandbox) => {
    // the default is 10 s (above); a short one keeps the test short
    const { fence, clock } = fenceOver(sandbox, { fence: { timeoutMs: 150 } });
    sandbox.switches.delays = [{ ms: 3_000, match: { operationName: 'SvcWorkspaceBots' } }];
    assert.equal(await fence.resolve(), 'unavailable');
    assert.equal(asks(sandbox), 1);
    sandbox.switches.delays = [];
    clock.now += 5_000;
    assert.deepEqual(bots(await fence.resolve()), [WORLD_IDS.bot1, WORLD_IDS.bot2, WORLD_IDS.bot3]);
    assert.equal(asks(sandbox), 2);
  });
});
