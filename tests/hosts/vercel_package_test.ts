/**
 * The serverless host as a user meets it: a function app whose `api/svc.js`
 * re-exports 'svc-gateway/vercel' (the packed npm package installed into a
 * throwaway app), beside the vercel.json of hosts/README.md. A stand-in for the
 * platform imports the function and listens on its default export; requests
 * arrive rewritten to `/api/svc?cfpath=...` as the platform's rewrite sends them.
 * SPEC "Startup behaviour and hosts" (Serverless host), "Errors".
 */
import assert from 'node:assert/strict';
import { type ChildProcess, startChildProcess } from '../../scripts/host_process.ts';
import { type Sandbox, SANDBOX_TOKEN, startSandbox } from '../../scripts/sandbox/mod.ts';
import {
  assertNothingReached,
  assertRefusal,
  assertSecurityHeaders,
  rawRequest,
} from '../helpers/assertions.ts';
import { createPackageApp } from './package_app.ts';
import { runRouteTable } from './route_table.ts';
import { vercelConfig } from '../../hosts/vercel/config.ts';

/** The vercel.json a user copies (the package's; hosts/README.md shows the same, step below). */
const VERCEL_JSON = vercelConfig();

const FILES = {
  'api/svc.js': "export { default } from 'svc-gateway/vercel';\n",
  'vercel.json': JSON.stringify(VERCEL_JSON, null, 2),
  // the platform stand-in: import the function file, listen on its default export
  'platform.mjs': [
    "import server from './api/svc.js';",
    "server.listen(0, '127.0.0.1', () => {",
    '  console.log(`function listening on http://127.0.0.1:${server.address().port}`);',
    '});',
    "process.on('SIGTERM', () => { server.closeAllConnections(); server.close(() => process.exit(0)); });",
    '',
  ].join('\n'),
};

/** What the platform's rewrite makes of a gateway path: `/svc/a/b?x=1` to `/api/svc?cfpath=a%2Fb&x=1`. */
function rewritten(path: string): string {
  const [pathname, query] = path.split('?');
  const rest = pathname.slice('/svc/'.length);
  return `/api/svc?cfpath=${encodeURIComponent(rest)}${query ? `&${query}` : ''}`;
}

function startFunction(dir: string, env: Record<string, string>): Promise<ChildProcess> {
  return startChildProcess({
    command: ['node', 'platform.mjs'],
    cwd: dir,
    env,
    ready: /listening on (http:\/\/\S+)/,
  });
}

function functionEnv(sandbox: Sandbox): Record<string, string> {
  // a function is reachable (never loopback-only): open mode must be acknowledged
  return { SVC_TOKEN: SANDBOX_TOKEN, SVC_API_BASE: sandbox.url, SVC_OPEN_PROXY: '1' };
}

Deno.test('vercel package: api/svc.js re-exporting svc-gateway/vercel, driven through rewritten paths', async (t) => {
  const sandbox = await startSandbox();
  const app = await createPackageApp(FILES);
  const running: ChildProcess[] = [];
  try {
    const fn = await startFunction(app.dir, functionEnv(sandbox));
    running.push(fn);
    assert.ok(fn.lines.some((l) => l.startsWith('WARNING')), fn.lines.join('\n'));
    assert.ok(!fn.lines.join('\n').includes(SANDBOX_TOKEN));
    await t.step(
      'route table through the rewrite',
      (t) => runRouteTable(t, { origin: fn.url, sandbox, target: rewritten }),
    );

    await t.step(
      'cfpath given twice or malformed: 400 InvalidRequest, nothing reached',
      async () => {
        await assertNothingReached(sandbox, async () => {
          for (
            const query of [
              'cfpath=graphql&cfpath=graphql',
              'cfpath=%2Fgraphql',
              'cfpath=..%2Fgraphql',
              'cfpath=.%2Fgraphql',
              'cfpath=api%2F..%2Fgraphql',
              'cfpath=%252e%252e%2Fgraphql',
              'cfpath=graphql%3Fop%3DX',
              'cfpath=graphql%23x',
              'cfpath=graphql%253F',
              'cfpath=%25zz',
            ]
          ) {
            const res = await fetch(`${fn.url}/api/svc?${query}`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ query: '{ currentUser { id } }' }),
            });
            await assertRefusal(res, 400, 'InvalidRequest');
          }
        });
      },
    );
    await t.step(
      'every segment re-encoded: an encoded slash stays inside its segment',
      async () => {
        await assertNothingReached(sandbox, async () => {
          const res = await fetch(`${fn.url}/api/svc?cfpath=${encodeURIComponent('graphql%2Fx')}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{}',
          });
          await assertRefusal(res, 404, 'NotFound');
        });
      },
    );
    await t.step('without the parameter the request passes untouched', async () => {
      const res = await fetch(`${fn.url}/svc/healthz`);
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { ok: true });
    });
    await t.step('unclaimed path: 404 NotFound envelope with the security headers', async () => {
      await assertRefusal(await fetch(`${fn.url}/api/svc?cfpath=nothing`), 404, 'NotFound');
      await assertRefusal(await fetch(`${fn.url}/api/svc`), 404, 'NotFound');
      await assertRefusal(await fetch(`${fn.url}/`), 404, 'NotFound');
    });

    const refused = await startFunction(app.dir, { ...functionEnv(sandbox), SVC_OPEN_PROXY: '' });
    running.push(refused);
    await t.step('a refused configuration: logged, health answers, the rest 503', async () => {
      assert.ok(refused.lines.some((l) => l.startsWith('REFUSING TO SERVE: open mode')));
      const health = await fetch(`${refused.url}${rewritten('/svc/healthz')}`);
      assert.equal(health.status, 200);
      assertSecurityHeaders(health);
      await health.body?.cancel();
      await assertNothingReached(sandbox, async () => {
        const res = await fetch(`${refused.url}${rewritten('/svc/graphql')}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: '{ currentUser { id } }' }),
        });
        await assertRefusal(res, 503, 'ProxyRefusedToServe');
        await assertRefusal(await fetch(`${refused.url}/elsewhere`), 503, 'ProxyRefusedToServe');
        const upgrade = await rawRequest(
          refused.url,
          [
            `GET ${rewritten('/svc/graphql')} HTTP/1.1`,
            `host: ${new URL(refused.url).host}`,
            'connection: Upgrade',
            'upgrade: websocket',
            'sec-websocket-version: 13',
            'sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==',
            'sec-websocket-protocol: graphql-transport-ws',
          ].join('\r\n'),
        );
        assert.equal(upgrade.status, 503);
      });
    });
    await t.step('the vercel.json of hosts/README.md is the one tested here', async () => {
      const readme = await Deno.readTextFile(new URL('../../hosts/README.md', import.meta.url));
      const block = readme.match(/```json vercel\.json\n([^]*?)```/);
      assert.ok(block, 'hosts/README.md has a ```json vercel.json block');
      assert.deepEqual(JSON.parse(block[1]), VERCEL_JSON);
      const shipped = await Deno.readTextFile(`${app.dir}/node_modules/svc-gateway/vercel.json`);
      assert.deepEqual(JSON.parse(shipped), VERCEL_JSON, 'the installed package ships it');
    });
  } finally {
    for (const child of running) await child.stop();
    await app.remove();
    await sandbox.close();
  }
});
