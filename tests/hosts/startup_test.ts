/**
 * The two host entry points as real processes: `deno task serve`
 * (hosts/deno/serve.ts) and the npm bin `svc-gateway` under Node. Startup lines,
 * REFUSING TO SERVE, the open-mode WARNING, the .env file under the process
 * environment, and outbound calls through HTTP_PROXY with its credentials
 * masked in the startup line (SPEC "Startup behaviour and hosts").
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { SANDBOX_TOKEN, startSandbox } from '../../scripts/sandbox/mod.ts';
import { createClient } from 'graphql-ws';
import { postGraphql } from '../helpers/assertions.ts';
import { startHostProcess } from '../../scripts/host_process.ts';
import { startForwardProxy } from '../helpers/processes.ts';

for (const kind of ['deno', 'node'] as const) {
  Deno.test(`[${kind}] startup lines, then the address; outbound calls go through HTTP_PROXY`, async () => {
    const sandbox = await startSandbox();
    const proxy = await startForwardProxy();
    const withCreds = proxy.url.replace('http://', 'http://user:proxy-secret@');
    const host = await startHostProcess(kind, {
      env: {
        SVC_TOKEN: SANDBOX_TOKEN,
        SVC_API_BASE: sandbox.url,
        HOST: '127.0.0.1',
        PORT: '0',
        HTTP_PROXY: withCreds,
        http_proxy: withCreds,
      },
    });
    try {
      assert.ok(host.url, host.lines.join('\n'));
      const text = host.lines.join('\n');
      assert.match(text, /svc-gateway: gate off/);
      assert.match(text, /outbound proxy http:\/\/\*\*\*:\*\*\*@127\.0\.0\.1:\d+/);
      assert.ok(!text.includes('proxy-secret') && !text.includes(SANDBOX_TOKEN));
      const res = await postGraphql(host.url!, { query: '{ currentUser { id } }' });
      assert.equal(res.status, 200, await res.clone().text());
      await res.body?.cancel();
      // absolute-form (Deno) or a CONNECT tunnel (undici) to the sandbox
      const target = new URL(sandbox.url).host;
      assert.ok(proxy.seen.some((u) => u.includes(target)), proxy.seen.join(', '));
      // the relay's upstream socket goes through the proxy too (a CONNECT tunnel)
      const tunnels = proxy.seen.filter((u) => u === `CONNECT ${target}`).length;
      const client = createClient({
        url: `${host.url.replace('http', 'ws')}/svc/graphql`,
        webSocketImpl: WebSocket,
        retryAttempts: 0,
      });
      try {
        const done = new Promise<unknown>((resolve, reject) => {
          client.subscribe({ query: '{ currentUser { id } }' }, {
            next: resolve,
            error: reject,
            complete: () => {},
          });
        });
        assert.ok(await done);
      } finally {
        await client.dispose();
      }
      assert.equal(proxy.seen.filter((u) => u === `CONNECT ${target}`).length, tunnels + 1);
    } finally {
      await host.stop();
      await proxy.close();
      await sandbox.close();
    }
  });

  Deno.test(`[${kind}] NO_PROXY names hosts reached directly`, async () => {
    const sandbox = await startSandbox();
    const proxy = await startForwardProxy();
    const target = new URL(sandbox.url).host;
    const host = await startHostProcess(kind, {
      env: {
        SVC_TOKEN: SANDBOX_TOKEN,
        SVC_API_BASE: sandbox.url,
        HOST: '127.0.0.1',
        PORT: '0',
        HTTP_PROXY: proxy.url,
        NO_PROXY: new URL(sandbox.url).hostname,
      },
    });
    try {
      for (let i = 0; i < 2; i++) {
        const res = await postGraphql(host.url!, { query: '{ currentUser { id } }' });
        assert.equal(res.status, 200, await res.clone().text());
        await res.body?.cancel();
      }
      assert.ok(sandbox.received.length >= 2, 'the calls reached the upstream');
      assert.ok(!proxy.seen.some((u) => u.includes(target)), proxy.seen.join(', '));
    } finally {
      await host.stop();
      await proxy.close();
      await sandbox.close();
    }
  });

  Deno.test(`[${kind}] open mode on a reachable host: refused without SVC_OPEN_PROXY, warned with it`, async () => {
    // exits with code 1 before ever printing an address (never binds)
    await assert.rejects(
      startHostProcess(kind, { env: { SVC_TOKEN: 't', HOST: '0.0.0.0', PORT: '0' } }),
      /\(code 1\)[^]*^REFUSING TO SERVE: open mode/m,
    );
    await assert.rejects(
      startHostProcess(kind, { env: { SVC_TOKEN: 't', PORT: '0', ALLOWED_ORIGINS: '*' } }),
      /\(code 1\)[^]*^REFUSING TO SERVE: ALLOWED_ORIGINS='\*'/m,
    );
    const warned = await startHostProcess(kind, {
      env: { SVC_TOKEN: 't', HOST: '0.0.0.0', PORT: '0', SVC_OPEN_PROXY: '1' },
    });
    try {
      assert.ok(warned.url, warned.lines.join('\n'));
      assert.match(warned.lines.join('\n'), /^WARNING: open mode acknowledged/m);
    } finally {
      await warned.stop();
    }
  });

  Deno.test(`[${kind}] .env in the working directory, the process environment winning`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-env-'));
    writeFileSync(join(dir, '.env'), 'SVC_TOKEN=from-file\nGRAPHQL_MAX_BATCH=3\nPORT=1\n');
    const host = await startHostProcess(kind, {
      env: { PORT: '0', SVC_API_BASE: 'http://127.0.0.1:9' },
      cwd: dir,
    });
    try {
      assert.ok(!host.url.endsWith(':1'), 'PORT from the process environment wins over .env');
      assert.ok(!host.lines.join('\n').includes('ProxyTokenMissing'), 'the token came from .env');
      const batch = await postGraphql(host.url!, Array(4).fill({ query: '{ a }' }));
      assert.equal(batch.status, 413, 'GRAPHQL_MAX_BATCH=3 came from .env');
      await batch.body?.cancel();
    } finally {
      await host.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
