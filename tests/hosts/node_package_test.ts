/**
 * The Node server host as a user meets it: the packed npm package installed into
 * a throwaway app with a real dist folder, run through its bin
 * (`svc-gateway`, default ./dist, `--dist`, BASE_PATH) and through a server entry
 * of the app's own calling `createSvcServer` from 'svc-gateway/node'. Every run
 * gets the shared route table, then the static rules, BASE_PATH and SIGTERM, and the bin under
 * npx closes when npx is sent SIGTERM (hosts/node/launcher.ts).
 * SPEC "Startup behaviour and hosts" (Node server), "Forwarding rules".
 */
import assert from 'node:assert/strict';
import { type ChildProcess, startChildProcess } from '../../scripts/host_process.ts';
import { type Sandbox, SANDBOX_TOKEN, startSandbox } from '../../scripts/sandbox/mod.ts';
import { createClient } from 'graphql-ws';
import { assertSecurityHeaders, rawRequest } from '../helpers/assertions.ts';
import { createPackageApp } from './package_app.ts';
import { runRouteTable } from './route_table.ts';

const FILES = {
  'dist/index.html': '<!doctype html><title>app</title>',
  'dist/assets/app-1a2b3c.js': 'console.log("app");',
  'dist/assets/app-1a2b3c.css': 'body{}',
  'dist/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
  'dist/docs/index.html': '<!doctype html><title>docs</title>',
  'secret.txt': 'outside the build',
  'server.mjs': [
    "import { createSvcServer } from 'svc-gateway/node';",
    "const svc = createSvcServer({ distDir: new URL('./dist', import.meta.url).pathname });",
    'const { url } = await svc.listen();',
    'console.log(`svc-gateway listening on ${url}`);',
    "process.on('SIGTERM', () => svc.close().then(() => process.exit(0)));",
    '',
  ].join('\n'),
};

function hostEnv(sandbox: Sandbox, extra: Record<string, string> = {}): Record<string, string> {
  return { SVC_TOKEN: SANDBOX_TOKEN, SVC_API_BASE: sandbox.url, PORT: '0', ...extra };
}

function start(dir: string, command: string[], env: Record<string, string>) {
  return startChildProcess({ command, cwd: dir, env, ready: /listening on (http:\/\/\S+)/ });
}

/** GET over a raw socket, so dot segments and escapes reach the server as written. */
function rawGet(origin: string, target: string) {
  return rawRequest(origin, `GET ${target} HTTP/1.1\r\nhost: ${new URL(origin).host}`);
}

async function staticRules(t: Deno.TestContext, origin: string, base: string) {
  await t.step('index.html no-cache, assets immutable, content types', async () => {
    const index = await fetch(`${origin}${base}/`);
    assert.equal(index.status, 200);
    assert.equal(index.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(index.headers.get('cache-control'), 'no-cache');
    assert.match(await index.text(), /<title>app/);
    assertSecurityHeaders(index);
    const js = await fetch(`${origin}${base}/assets/app-1a2b3c.js`);
    assert.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(js.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(await js.text(), 'console.log("app");');
    assertSecurityHeaders(js);
    const css = await fetch(`${origin}${base}/assets/app-1a2b3c.css`);
    assert.equal(css.headers.get('content-type'), 'text/css; charset=utf-8');
    await css.body?.cancel();
    const svg = await fetch(`${origin}${base}/logo.svg`);
    assert.equal(svg.headers.get('content-type'), 'image/svg+xml');
    assert.equal(svg.headers.get('cache-control'), 'no-cache');
    await svg.body?.cancel();
    const head = await fetch(`${origin}${base}/assets/app-1a2b3c.js`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), String('console.log("app");'.length));
  });
  await t.step('SPA fallback only for extension-less paths; a directory its index', async () => {
    const deep = await fetch(`${origin}${base}/settings/profile`);
    assert.equal(deep.status, 200);
    assert.match(await deep.text(), /<title>app/);
    assert.equal(deep.headers.get('cache-control'), 'no-cache');
    const docs = await fetch(`${origin}${base}/docs/`);
    assert.match(await docs.text(), /<title>docs/);
    // the gateway's prefix never falls back (SPEC "Endpoints"), however the path is spelled
    for (const target of ['/svc/publishing/config', '/%73vc/publishing/config', '//svc/auth/x']) {
      const res = await rawGet(origin, `${base}${target}`);
      assert.equal(res.status, 404, `${target}: ${res.body}`);
      assert.doesNotMatch(res.body, /<title>/, target);
    }
    for (const path of ['/missing.js', '/assets/gone-123.css', '/favicon.ico']) {
      const res = await fetch(`${origin}${base}${path}`);
      assert.equal(res.status, 404, path);
      assertSecurityHeaders(res);
      await res.body?.cancel();
    }
  });
  await t.step('traversal, encoded traversal, dot segments, symlink escaping: 404', async () => {
    for (
      const target of [
        '/../secret.txt',
        '/assets/../../secret.txt',
        '/%2e%2e/secret.txt',
        '/..%2fsecret.txt',
        '/assets%2f..%2f..%2fsecret.txt',
        '/%2E%2E%5Csecret.txt',
        '/./index.html',
        '/.env',
        '/leak.txt',
        '/escape/secret.txt',
        '/bad%zz',
      ]
    ) {
      const res = await rawGet(origin, `${base}${target}`);
      assert.equal(res.status, 404, `${target}: ${res.body}`);
      assert.ok(!res.body.includes('outside the build'), target);
      assert.equal(res.headers['x-content-type-options'], 'nosniff', target);
    }
  });
  await t.step('other methods: 405, allow: GET, HEAD, empty body, security headers', async () => {
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const res = await fetch(`${origin}${base}/index.html`, { method, body: 'x' });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get('allow'), 'GET, HEAD');
      assert.equal(await res.text(), '');
      assertSecurityHeaders(res);
    }
  });
  await t.step('an upgrade not for the relay path is destroyed', async () => {
    const socket = new WebSocket(`${origin.replace('http', 'ws')}${base}/elsewhere`);
    const closed = await new Promise<string>((resolve) => {
      socket.onopen = () => resolve('open');
      socket.onerror = () => resolve('error');
    });
    assert.equal(closed, 'error');
  });
}

Deno.test('node package: the bin and createSvcServer with a real dist, BASE_PATH, SIGTERM', async (t) => {
  const sandbox = await startSandbox();
  const app = await createPackageApp(FILES);
  const running: ChildProcess[] = [];
  try {
    await Deno.symlink(`${app.dir}/secret.txt`, `${app.dir}/dist/leak.txt`);
    await Deno.symlink(app.dir, `${app.dir}/dist/escape`);
    const bin = await start(app.dir, ['node_modules/.bin/svc-gateway'], hostEnv(sandbox));
    running.push(bin);
    assert.ok(bin.lines.some((l) => l === `svc-gateway: static files from ${app.dir}/dist`));
    await t.step(
      'bin (default ./dist): route table',
      (t) => runRouteTable(t, { origin: bin.url, sandbox }),
    );
    await t.step('bin: static rules', (t) => staticRules(t, bin.url, ''));

    const based = await start(
      app.dir,
      ['node_modules/.bin/svc-gateway', '--dist', 'dist'],
      hostEnv(sandbox, { BASE_PATH: '/app/' }),
    );
    running.push(based);
    const origin = new URL(based.url).origin;
    assert.equal(based.url, `${origin}/app`);
    await t.step(
      'BASE_PATH=/app: route table under it',
      (t) => runRouteTable(t, { origin, sandbox, target: (path) => `/app${path}` }),
    );
    await t.step('BASE_PATH=/app: static rules under it', (t) => staticRules(t, origin, '/app'));
    await t.step('BASE_PATH=/app: a path outside it is 404, health included', async () => {
      for (const path of ['/', '/svc/healthz', '/index.html', '/apple', '/svc/graphql']) {
        const res = await fetch(`${origin}${path}`);
        assert.equal(res.status, 404, path);
        assertSecurityHeaders(res);
        await res.body?.cancel();
      }
    });

    const entry = await start(app.dir, ['node', 'server.mjs'], hostEnv(sandbox));
    running.push(entry);
    await t.step(
      'createSvcServer entry: route table',
      (t) => runRouteTable(t, { origin: entry.url, sandbox }),
    );
    await t.step('createSvcServer entry: static index', async () => {
      const res = await fetch(`${entry.url}/deep/link`);
      assert.match(await res.text(), /<title>app/);
    });
    await t.step('--dist naming a missing directory: exit 1 with the reason', async () => {
      await assert.rejects(
        start(app.dir, ['node_modules/.bin/svc-gateway', '--dist', 'nowhere'], hostEnv(sandbox)),
        /\(code 1\)[^]*the dist directory nowhere does not exist/,
      );
    });
    await t.step('a refused configuration never binds (exit 1, REFUSING TO SERVE)', async () => {
      await assert.rejects(
        start(app.dir, ['node_modules/.bin/svc-gateway'], {
          SVC_TOKEN: 't',
          HOST: '0.0.0.0',
          PORT: '0',
        }),
        /\(code 1\)[^]*^REFUSING TO SERVE: open mode/m,
      );
    });
    await t.step(
      'bin, SIGTERM: the in-flight request finishes, the socket closes 1001',
      async () => {
        sandbox.switches.delays = [{ ms: 400, match: { path: '/graphql' } }];
        const client = createClient({
          url: `${bin.url.replace('http', 'ws')}/svc/graphql`,
          webSocketImpl: WebSocket,
          retryAttempts: 0,
          lazy: false,
        });
        const closed = new Promise<number>((resolve) =>
          client.on('closed', (e) => {
            resolve((e as CloseEvent).code);
          })
        );
        await new Promise((resolve) => client.on('connected', resolve));
        const inFlight = fetch(`${bin.url}/svc/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: '{ currentUser { id } }' }),
        });
        await sandbox.waitFor(() => sandbox.received.some((r) => r.answer === null), 'in flight');
        const stopped = bin.stop();
        const res = await inFlight;
        assert.equal(res.status, 200);
        assert.ok((await res.json()).data);
        assert.equal(await closed, 1001);
        await stopped;
        await client.dispose();
        sandbox.switches.delays = [];
      },
    );
    await t.step(
      'npx svc-gateway, npx sent SIGTERM: the gateway it started closes too, workers included',
      async () => {
        for (const flags of [[], ['--workers', '2']]) {
          const command = ['npx', '--offline', 'svc-gateway', ...flags];
          const viaNpx = await start(app.dir, command, hostEnv(sandbox));
          const health = await fetch(`${viaNpx.url}/svc/healthz`);
          assert.equal(health.status, 200);
          await health.body?.cancel();
          // npx ends without passing the signal on; the gateway holds the output pipes until it
          // exits
          const stopped = viaNpx.stop().then(() => 'closed');
          const outcome = await Promise.race([stopped, sleep(15_000).then(() => 'still running')]);
          if (outcome !== 'closed') await killBins(app.dir);
          assert.equal(outcome, 'closed', `${command.join(' ')}: left running after npx ended`);
          await assert.rejects(fetch(`${viaNpx.url}/svc/healthz`), 'the port is closed');
        }
      },
    );
  } finally {
    for (const child of running) await child.stop();
    await app.remove();
    await sandbox.close();
  }
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Kills every process running `dir`'s installed bin (one npx left behind). */
async function killBins(dir: string): Promise<void> {
  const bin = `${dir}/node_modules/.bin/svc-gateway`;
  for await (const entry of Deno.readDir('/proc')) {
    if (!/^\d+$/.test(entry.name)) continue;
    const cmdline = await Deno.readTextFile(`/proc/${entry.name}/cmdline`).catch(() => '');
    if (cmdline.split('\0').includes(bin)) Deno.kill(Number(entry.name), 'SIGKILL');
  }
}
