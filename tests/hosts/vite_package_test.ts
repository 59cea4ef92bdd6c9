/**
 * The dev server host as a user meets it: a Vite app (vite from npm) with
 * `plugins: [svcGateway()]` from the packed package, installed once into a
 * throwaway app. The route table runs through `vite` (dev) and `vite preview`;
 * Vite's own page and its HMR socket still answer; the env file is read with an
 * empty prefix under the process environment; a refused configuration stops
 * Vite from starting. SPEC "Startup behaviour and hosts" (Dev server host).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, ROOT, startChildProcess } from '../../scripts/host_process.ts';
import { SANDBOX_TOKEN, startSandbox } from '../../scripts/sandbox/mod.ts';
import { assertNothingReached, assertRefusal, rawRequest } from '../helpers/assertions.ts';
import { createPackageApp } from './package_app.ts';
import { runRouteTable } from './route_table.ts';

/**
 * The Vite the app installs, pinned to an exact version so that a new release cannot turn the
 * suite red on its own. `SVC_TEST_VITE` runs the same test against another on purpose, e.g.
 * `SVC_TEST_VITE=vite@latest` (the newest release) or `SVC_TEST_VITE=vite@7.3.8`.
 */
const VITE = Deno.env.get('SVC_TEST_VITE') ?? 'vite@8.4.0';

const FILES = {
  'index.html':
    '<!doctype html><title>vite app</title><script type="module" src="/main.js"></script>',
  'main.js': 'document.title = "running";\n',
  // a TypeScript user of every entry (checked with tsc, the package's .d.ts files only)
  'types_check.ts': [
    "import { defineConfig } from 'vite';",
    "import type { Server } from 'node:http';",
    "import { createSvcProxy, type SvcProxyOptions } from 'svc-gateway';",
    "import { createNodeHandler, createNodeServer, createSvcServer } from 'svc-gateway/node';",
    "import svcGateway, { svcGateway as named } from 'svc-gateway/vite';",
    "import fn, { createVercelServer } from 'svc-gateway/vercel';",
    "const options: SvcProxyOptions = { upstream: 'https://api.example', operations: [] };",
    'const proxy = createSvcProxy(options, {});',
    'const servers: Server[] = [createNodeServer(proxy), fn, createVercelServer(options, {})];',
    "const svc = createSvcServer({ distDir: 'dist', port: 0, options });",
    'const handler = createNodeHandler(proxy);',
    'export const config = defineConfig({ plugins: [svcGateway(options), named()] });',
    'export const used = [servers, svc.listen, handler.handleRequest];',
    '',
  ].join('\n'),
  'vite.config.js': [
    "import svcGateway from 'svc-gateway/vite';",
    'export default {',
    '  plugins: [svcGateway()],',
    "  server: { host: '127.0.0.1', allowedHosts: ['app.example'] },",
    "  preview: { host: '127.0.0.1' },",
    '};',
    '',
  ].join('\n'),
};

/** A free loopback port (Vite prints the port it bound; strictPort keeps it exact). */
function freePort(): number {
  const listener = Deno.listen({ hostname: '127.0.0.1', port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

function startVite(dir: string, args: string[], env: Record<string, string>) {
  return startChildProcess({
    command: [
      'node',
      'node_modules/vite/bin/vite.js',
      ...args,
      '--port',
      String(freePort()),
      '--strictPort',
    ],
    cwd: dir,
    env: { NO_COLOR: '1', ...env },
    ready: /Local:\s+(http:\/\/[^\s/]+)/,
  });
}

/** Opens Vite's HMR socket (its token read from /@vite/client) and returns its first message. */
async function hmrGreeting(origin: string): Promise<string> {
  const client = await (await fetch(`${origin}/@vite/client`)).text();
  const token = client.match(/const wsToken = "([^"]+)"/)?.[1];
  assert.ok(token, 'the HMR token in /@vite/client');
  const socket = new WebSocket(`${origin.replace('http', 'ws')}/?token=${token}`, 'vite-hmr');
  try {
    return await new Promise<string>((resolve, reject) => {
      socket.onmessage = (event) => resolve(String(event.data));
      socket.onerror = () => reject(new Error('the HMR socket failed'));
    });
  } finally {
    socket.close();
  }
}

/** The process environment of every Vite run: the token (the env file's wrong one loses). */
const PROCESS_ENV = { SVC_TOKEN: SANDBOX_TOKEN };

Deno.test(`vite package: svcGateway() in a ${VITE} app, dev and preview`, async (t) => {
  const sandbox = await startSandbox();
  const app = await createPackageApp(FILES, [VITE]);
  const running: ChildProcess[] = [];
  try {
    // the upstream comes from the env file (empty prefix), the token from the process environment
    await Deno.writeTextFile(`${app.dir}/.env`, `SVC_API_BASE=${sandbox.url}\nSVC_TOKEN=wrong\n`);
    const dev = await startVite(app.dir, [], PROCESS_ENV);
    running.push(dev);
    assert.ok(dev.lines.some((l) => l.includes('svc-gateway: gate off')), dev.lines.join('\n'));
    await t.step(
      'dev: route table through the dev server',
      (t) => runRouteTable(t, { origin: dev.url, sandbox }),
    );
    await t.step("dev: Vite's own page and HMR socket still answer", async () => {
      const page = await fetch(`${dev.url}/`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /@vite\/client/);
      assert.match(await hmrGreeting(dev.url), /"type":"connected"/);
    });
    await t.step("dev: Vite's allowedHosts join the host check (loopback bind)", async () => {
      const body = JSON.stringify({ query: '{ currentUser { id } }' });
      const send = (host: string) =>
        rawRequest(
          dev.url,
          `POST /svc/graphql HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\n` +
            `content-length: ${body.length}\r\nconnection: close`,
          body,
        );
      const port = new URL(dev.url).port;
      assert.equal((await send(`app.example:${port}`)).status, 200);
      await assertNothingReached(sandbox, async () => {
        // Vite's own host check runs ahead of every plugin middleware: its 403 or ours
        const refused = await send(`other.example:${port}`);
        assert.equal(refused.status, 403, refused.body);
      });
    });
    await t.step('dev: a path outside the proxy is left to Vite', async () => {
      const res = await fetch(`${dev.url}/main.js`);
      assert.equal(res.status, 200);
      assert.match(await res.text(), /running/);
    });

    await t.step(
      'types: every entry and the plugin in a defineConfig pass tsc --strict',
      async () => {
        const out = await new Deno.Command('node', {
          args: [
            `${ROOT}node_modules/typescript/bin/tsc`,
            '--noEmit',
            '--strict',
            '--module',
            'nodenext',
            '--target',
            'es2022',
            '--typeRoots',
            `${ROOT}node_modules/@types`,
            '--types',
            'node',
            'types_check.ts',
          ],
          cwd: app.dir,
          stdout: 'piped',
          stderr: 'piped',
        }).output();
        assert.ok(
          out.success,
          new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr),
        );
      },
    );
    await t.step('preview: route table after vite build', async (t) => {
      await new Deno.Command('node', {
        args: ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'error'],
        cwd: app.dir,
        stdout: 'null',
        stderr: 'null',
      }).output();
      const preview = await startVite(app.dir, ['preview'], PROCESS_ENV);
      running.push(preview);
      await runRouteTable(t, { origin: preview.url, sandbox });
    });

    // Vite 8.4 allows one dev server per project folder (a second exits: "Found another Vite
    // dev process for this project"), so each dev server below starts after the last one stopped.
    await dev.stop();
    await t.step(
      'a configuration problem is logged, never fatal: health 503, the envelope',
      async () => {
        const problem = await startVite(app.dir, [], { SVC_TOKEN: ' ' });
        running.push(problem);
        assert.ok(problem.lines.some((l) => l.includes('SVC_TOKEN')), problem.lines.join('\n'));
        const health = await fetch(`${problem.url}/svc/healthz`);
        assert.equal(health.status, 503);
        assert.deepEqual(await health.json(), { ok: false });
        await assertNothingReached(sandbox, async () => {
          const res = await fetch(`${problem.url}/svc/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ query: '{ currentUser { id } }' }),
          });
          await assertRefusal(res, 500, 'ProxyTokenMissing');
        });
        await problem.stop();
      },
    );

    await t.step(
      'a refused configuration throws before mounting: Vite does not start',
      async () => {
        await assert.rejects(
          startVite(app.dir, ['--host', '0.0.0.0'], PROCESS_ENV),
          /exited[^]*REFUSING TO SERVE: open mode/,
        );
      },
    );
  } finally {
    for (const child of running) await child.stop();
    await app.remove();
    await sandbox.close();
  }
});
