/**
 * SPEC "Startup behaviour and hosts", serverless host: "env read once per cold start". The
 * function (`createVercelServer()` over `process.env`, as the package's default export builds
 * it) reads the environment when it starts listening, not when it is built; a change to the
 * environment afterwards reaches nothing (the upstream and the token stay those it started
 * with, the startup lines are printed once); the next cold start (a new server) reads the
 * environment as it is then. Two sandbox upstreams tell which one a request reached.
 */
import assert from 'node:assert/strict';
import process from 'node:process';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createVercelServer } from '../../hosts/vercel/server.ts';
import { SANDBOX_TOKEN, startSandbox } from '../../scripts/sandbox/mod.ts';
import type { Sandbox } from '../../scripts/sandbox/mod.ts';

const KEYS = ['SVC_TOKEN', 'SVC_API_BASE', 'SVC_OPEN_PROXY'] as const;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** POSTs `{ currentUser { id } }` the way the platform's rewrite delivers /svc/graphql. */
async function ask(url: string): Promise<number> {
  const res = await fetch(`${url}/api/svc?cfpath=graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ currentUser { id } }' }),
  });
  await res.body?.cancel();
  return res.status;
}

const reached = (sandbox: Sandbox) => sandbox.received.length;

Deno.test('the serverless function reads its environment once per cold start', async () => {
  const saved = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]));
  const logged: string[] = [];
  const log = console.log;
  console.log = (...args: unknown[]) => void logged.push(args.join(' '));
  const [first, second] = [await startSandbox(), await startSandbox()];
  const servers: Server[] = [];
  try {
    const server = createVercelServer();
    servers.push(server);
    // built before the environment is set: it is read at the cold start, not at import
    process.env.SVC_TOKEN = SANDBOX_TOKEN;
    process.env.SVC_API_BASE = first.url;
    process.env.SVC_OPEN_PROXY = '1';
    const url = await listen(server);
    const startup = logged.length;
    assert.ok(startup > 0, 'the startup lines are printed at the cold start');
    assert.equal(await ask(url), 200);
    assert.equal(reached(first), 1);

    process.env.SVC_API_BASE = second.url;
    process.env.SVC_TOKEN = 'rotated-token-that-no-upstream-takes';
    for (let i = 0; i < 3; i++) assert.equal(await ask(url), 200);
    assert.equal(reached(first), 4, 'still the first upstream');
    assert.equal(reached(second), 0);
    assert.equal(logged.length, startup, 'the startup lines are not printed again');
    assert.equal(first.received.at(-1)?.headers.authorization, `Bearer ${SANDBOX_TOKEN}`);

    // the next cold start reads the environment as it is now
    process.env.SVC_TOKEN = SANDBOX_TOKEN;
    const next = createVercelServer();
    servers.push(next);
    assert.equal(await ask(await listen(next)), 200);
    assert.equal(reached(second), 1);
    assert.equal(reached(first), 4);
  } finally {
    console.log = log;
    for (const server of servers) await stop(server);
    await first.close();
    await second.close();
    for (const k of KEYS) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  }
});
