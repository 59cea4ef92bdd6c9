/**
 * SPEC "Errors", "Gate and fences": ProxyHandlerFailed, 500, "a route handler rejected; logged".
 * The GraphQL route's forward is made to reject (the `postText` host hook, whose error message
 * carries the master token), on both hosts: the caller gets the 500 envelope with
 * cache-control: no-store, one `handler failed` line is logged, the token is in neither, nothing
 * reached the upstream, and the process keeps answering. A listed cross-origin caller gets its CORS
 * headers on that 500 (SPEC "Checks before any route" 3), in the media type its Accept prefers.
 */
import assert from 'node:assert/strict';
import { createSvcProxy } from '../../mod.ts';
import { serveDeno } from '../../hosts/deno/server.ts';
import { denoOutbound } from '../../hosts/deno/outbound.ts';
import { startChildProcess } from '../../scripts/host_process.ts';
import { SANDBOX_TOKEN, startSandbox } from '../../scripts/sandbox/mod.ts';
import { assertRefusal, postGraphql } from '../helpers/assertions.ts';
import { type HostKind, HOSTS } from '../helpers/gateway.ts';
import { sandboxEnv } from '../helpers/setup.ts';
import { GRAPHQL_RESPONSE_TYPE } from '../../src/http/media_type.ts';

const CHILD = new URL('../node/handler_failed_child.mjs', import.meta.url).pathname;

interface Failing {
  url: string;
  /** Every line the gateway logged so far. */
  lines: string[];
  stop(): Promise<void>;
}

async function startFailing(kind: HostKind, env: Record<string, string>): Promise<Failing> {
  if (kind === 'node') {
    const child = await startChildProcess({
      command: ['node', CHILD],
      env: { SVC_TEST_CONFIG: JSON.stringify({ options: { loopbackOnly: true }, env }) },
      ready: /^LISTENING (\S+)/,
    });
    return { url: child.url, lines: child.lines, stop: () => child.stop() };
  }
  const lines: string[] = [];
  const postText = () => Promise.reject(new Error(`forward failed for ${env.SVC_TOKEN}`));
  const proxy = createSvcProxy(
    { loopbackOnly: true, ...denoOutbound(), postText, log: (l) => lines.push(l) },
    env,
  );
  const host = await serveDeno(proxy, '127.0.0.1', 0);
  return { url: host.url, lines, stop: () => host.shutdown() };
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] a route handler that rejects answers 500 ProxyHandlerFailed, logged`, async () => {
    const sandbox = await startSandbox();
    const gateway = await startFailing(kind, sandboxEnv(sandbox) as Record<string, string>);
    try {
      for (let i = 0; i < 2; i++) {
        const res = await postGraphql(gateway.url, { query: '{ currentUser { id } }' });
        const text = await res.clone().text();
        assert.equal(text.includes(SANDBOX_TOKEN), false, 'the token is not in the answer');
        const message = await assertRefusal(res, 500, 'ProxyHandlerFailed');
        assert.equal(message, 'The proxy failed to handle this request');
      }
      const health = await fetch(`${gateway.url}/svc/healthz`);
      assert.equal(health.status, 200, 'the process keeps answering');
      await health.body?.cancel();
      await sandbox.waitFor(
        () => gateway.lines.filter((l) => l.includes('handler failed')).length === 2,
        'one handler failed line per failure',
      );
      assert.deepEqual(gateway.lines.filter((l) => l.includes(SANDBOX_TOKEN)), []);
      assert.equal(sandbox.received.length, 0, 'nothing reached the upstream');
    } finally {
      await gateway.stop();
      await sandbox.close();
    }
  });
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] the 500 ProxyHandlerFailed carries a listed origin's CORS headers`, async () => {
    const sandbox = await startSandbox();
    const origin = 'https://app.example';
    const env = { ...sandboxEnv(sandbox), ALLOWED_ORIGINS: origin } as Record<string, string>;
    const gateway = await startFailing(kind, env);
    try {
      const res = await postGraphql(gateway.url, { query: '{ currentUser { id } }' }, {
        origin,
        accept: 'application/graphql-response+json,application/json;q=0.9',
      });
      assert.equal(res.headers.get('access-control-allow-origin'), origin);
      assert.equal(res.headers.get('access-control-allow-credentials'), 'true');
      assert.equal(res.headers.get('vary'), 'origin');
      assert.equal(res.headers.get('content-type'), GRAPHQL_RESPONSE_TYPE);
      await assertRefusal(res, 500, 'ProxyHandlerFailed');
      assert.equal(sandbox.received.length, 0, 'nothing reached the upstream');
    } finally {
      await gateway.stop();
      await sandbox.close();
    }
  });
}
