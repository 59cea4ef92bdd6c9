/**
 * createSvcSocket's `iterate` and `dispose` across a close graphql-ws gives up on by itself (SPEC
 * "WebSocket close codes": everything but the six fatal codes retries), with Deno's WebSocket
 * through the real Deno host to the sandbox upstream: an iterator keeps yielding after the
 * upstream's 4500 (a fresh socket, subscribed again once); `dispose` during the backoff ends a
 * waiting iterator and completes a waiting sink without opening another socket. The browser
 * side of the same rule is tests/browser/socket_test.ts.
 */
import assert from 'node:assert/strict';
import { createSvcSocket } from '../../src/client/mod.ts';
import { startSandbox, WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { startGateway } from '../helpers/gateway.ts';
import { sandboxEnv } from '../helpers/setup.ts';

const BOOKINGS = {
  query: 'subscription S($botID: BotID!) { bookingAdded(botID: $botID) { id } }',
  variables: { botID: WORLD_IDS.bot1 },
};

/** `promise`, or a failure naming `what` after 5 s (the test never waits on a broken path). */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`never happened: ${what}`)), 5000);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

Deno.test('client socket: iterate and dispose across an upstream 4500', async (t) => {
  const sandbox = await startSandbox();
  const gateway = await startGateway('deno', {}, sandboxEnv(sandbox));
  const url = `${gateway.url}/svc/graphql`;
  try {
    await t.step('an iterator keeps yielding after the 4500', async () => {
      sandbox.switches.stream = { count: 1, tickMs: 10, complete: false };
      const socket = createSvcSocket({ url, retry: { baseMs: 20, capMs: 40 } });
      const events = socket.iterate(BOOKINGS);
      try {
        assert.equal((await events.next()).done, false);
        assert.equal(sandbox.closeSockets(4500, 'upstream trouble'), 1);
        const again = await events.next();
        assert.equal(again.done, false);
        assert.ok((again.value as { data?: unknown }).data, 'an event from the new socket');
        assert.equal(sandbox.sockets.length, 2);
        assert.equal(sandbox.sockets[1].subscribes.length, 1, 'subscribed again, once');
      } finally {
        await events.return?.();
        await socket.dispose();
      }
      await sandbox.waitFor(() => sandbox.sockets.every((s) => s.closed), 'upstream legs closed');
    });

    await t.step('dispose during the backoff ends the waiting iterator and sink', async () => {
      sandbox.reset();
      sandbox.switches.stream = { count: 1, tickMs: 10, complete: false };
      // a ten-minute backoff: only dispose can end the wait within this test
      const socket = createSvcSocket({ url, retry: { baseMs: 600_000, capMs: 600_000 } });
      const ended = Promise.withResolvers<string>();
      let received = 0;
      socket.subscribe(BOOKINGS, {
        next: () => void received++,
        error: () => ended.resolve('error'),
        complete: () => ended.resolve('complete'),
      });
      const events = socket.iterate(BOOKINGS);
      assert.equal((await events.next()).done, false);
      await sandbox.waitFor(() => received === 1, 'the sink got its event');
      const closed = Promise.withResolvers<void>();
      socket.on('closed', () => closed.resolve());
      assert.equal(sandbox.closeSockets(4500, 'upstream trouble'), 1);
      await closed.promise;
      const waiting = events.next();
      await new Promise((resolve) => setTimeout(resolve, 50)); // let the iterator reach the wait
      await socket.dispose();
      assert.equal((await within(waiting, 'the iterator ends')).done, true);
      assert.equal(await within(ended.promise, 'the sink ends'), 'complete');
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(sandbox.sockets.length, 1, 'no second socket');
    });
  } finally {
    await gateway.stop();
    await sandbox.close();
  }
});
