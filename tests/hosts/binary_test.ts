/**
 * The Node host as one executable (`deno task build:binary`, scripts/build_binary.ts), as a user
 * runs it: built from the emitted npm package (npm/, so `deno task build:npm` first, as `deno task
 * test` does), the file copied alone into an empty folder and started there with nothing beside it.
 * Everything the build needs comes from the npm registry (esbuild, postject) and the `node` on
 * PATH, so this test never skips.
 *
 * Started with only environment variables: the startup lines, the shared route table (health,
 * forwarding with the token added, refusals reaching nothing, the relay), a foreign bot refused,
 * a subscription relayed to its end, a `--dist` folder served, SIGTERM (exit 0). Started with a
 * `.env` beside it instead, with WORKERS=2: one deployment of two worker processes, drained on
 * SIGTERM with no process left (it reads the same variables and `.env` of the working directory
 * as `npx svc-gateway`: README.md "One file: the Node server as a single executable").
 * `--version` prints the package's version; `sandbox` runs the sandbox upstream, whose printed
 * variables point the executable at it (README.md "Developing without a master token").
 * SPEC "Startup behaviour and hosts" (Node server).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, ROOT, startChildProcess } from '../../scripts/host_process.ts';
import { SANDBOX_TOKEN, startSandbox, WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { subscribeToEnd } from './subscribe.ts';
import { FOREIGN_BOT, operationBody } from '../../scripts/demo/traffic.ts';
import { PACKAGE_VERSION } from '../../hosts/node/version.ts';
import { assertNothingReached, assertRefusal, forwarded } from '../helpers/assertions.ts';
import { ROUTE_TABLE, runRouteTable } from './route_table.ts';

const READY = /listening on (http:\/\/\S+)/;
const SITE = {
  'index.html': '<!doctype html><title>binary app</title>',
  'assets/app-1a2b3c.js': 'console.log("binary");',
};

/** Runs the build script as `deno task build:binary` does, writing the executable to `output`. */
async function build(output: string): Promise<void> {
  const run = await new Deno.Command(Deno.execPath(), {
    args: [
      'run',
      '--allow-all',
      `--config=${ROOT}deno.json`,
      `${ROOT}scripts/build_binary.ts`,
      '--out',
      output,
    ],
    stdout: 'piped',
    stderr: 'piped',
  }).output();
  const text = new TextDecoder().decode(run.stdout) + new TextDecoder().decode(run.stderr);
  assert.ok(run.success, `build_binary.ts failed:\n${text}`);
}

/** The process ids whose parent is `pid` (Linux /proc). */
async function childrenOf(pid: number): Promise<number[]> {
  const text = await Deno.readTextFile(`/proc/${pid}/task/${pid}/children`).catch(() => '');
  return text.trim().split(/\s+/).filter((p) => p !== '').map(Number);
}

/** Whether process `pid` runs (a zombie does not). */
async function alive(pid: number): Promise<boolean> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`).catch(() => null);
  return stat !== null && !/^\d+ \(.*\) Z/.test(stat);
}

async function names(dir: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) found.push(entry.name);
  return found.sort();
}

async function writeSite(dir: string): Promise<void> {
  for (const [path, text] of Object.entries(SITE)) {
    await Deno.mkdir(`${dir}/${path}`.replace(/\/[^/]+$/, ''), { recursive: true });
    await Deno.writeTextFile(`${dir}/${path}`, text);
  }
}

Deno.test('the Node host as one executable: alone in a folder, env or .env, workers, SIGTERM', async (t) => {
  const root = await Deno.makeTempDir({ prefix: 'svc-gateway-binary-' });
  const sandbox = await startSandbox();
  const running: ChildProcess[] = [];
  try {
    await build(`${root}/build/svc-gateway`);
    const folder = `${root}/server`;
    await Deno.mkdir(folder);
    await Deno.copyFile(`${root}/build/svc-gateway`, `${folder}/svc-gateway`);
    await Deno.chmod(`${folder}/svc-gateway`, 0o755);
    const binary = `${folder}/svc-gateway`;
    assert.deepEqual(await names(folder), ['svc-gateway'], 'one file, nothing beside it');

    await t.step("--version prints the package's version", async () => {
      const run = await new Deno.Command(binary, { args: ['--version'], cwd: folder }).output();
      assert.equal(run.code, 0);
      const npm = JSON.parse(await Deno.readTextFile(`${ROOT}npm/package.json`));
      assert.equal(npm.version, PACKAGE_VERSION);
      assert.equal(new TextDecoder().decode(run.stdout), `${npm.version}\n`);
    });

    const site = `${root}/site`;
    await writeSite(site);
    const alone = await startChildProcess({
      command: [binary, '--dist', site],
      cwd: folder,
      env: { SVC_TOKEN: SANDBOX_TOKEN, SVC_API_BASE: sandbox.url, PORT: '0' },
      ready: READY,
    });
    running.push(alone);

    await t.step('startup lines: the configuration, the static folder, the address', () => {
      const [config] = alone.lines;
      assert.match(config, /^svc-gateway: gate off .*; upstream http:\/\/127\.0\.0\.1:\d+;/);
      assert.ok(config.includes(`upstream ${sandbox.url};`), config);
      assert.ok(alone.lines.includes(`svc-gateway: static files from ${site}`), alone.lines.join());
      assert.match(alone.lines.at(-1)!, /^svc-gateway listening on http:\/\/127\.0\.0\.1:\d+$/);
      assert.ok(!alone.lines.join('\n').includes(SANDBOX_TOKEN));
      assert.deepEqual(alone.errors, [], 'nothing on stderr');
    });
    await t.step('route table', (t) => runRouteTable(t, { origin: alone.url, sandbox }));
    await t.step('a foreign bot: 403 BotNotAllowed, nothing reached the upstream', async () => {
      await assertNothingReached(sandbox, async () => {
        const res = await fetch(`${alone.url}/svc/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: operationBody('MyBotRole', FOREIGN_BOT),
        });
        await assertRefusal(res, 403, 'BotNotAllowed');
      });
    });
    await t.step('a subscription is relayed to its end, the token added upstream', async () => {
      const sockets = sandbox.sockets.length;
      const payloads = await subscribeToEnd(alone.url);
      assert.equal(payloads.length, 3, JSON.stringify(payloads));
      for (const payload of payloads) {
        const data = (payload as { data?: Record<string, unknown> }).data;
        assert.equal(typeof data?.unseenOpenDialogsCountChanged, 'number', JSON.stringify(payload));
      }
      const upstream = sandbox.sockets.slice(sockets);
      assert.equal(upstream.length, 1);
      assert.equal(upstream[0].authorized, true);
      assert.equal(upstream[0].subscribes[0].payload.variables?.botID, WORLD_IDS.bot1);
    });
    await t.step('--dist: the index, an asset, the SPA fallback', async () => {
      const index = await fetch(`${alone.url}/`);
      assert.equal(index.status, 200);
      assert.equal(await index.text(), SITE['index.html']);
      const asset = await fetch(`${alone.url}/assets/app-1a2b3c.js`);
      assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.equal(await asset.text(), SITE['assets/app-1a2b3c.js']);
      const deep = await fetch(`${alone.url}/settings/profile`);
      assert.equal(await deep.text(), SITE['index.html']);
    });
    await t.step('SIGTERM: exit 0', async () => {
      await alone.stop();
      assert.equal((await alone.exited).code, 0);
      assert.equal(await alive(alone.pid), false);
    });

    await t.step('sandbox: its printed variables run the executable against it', async () => {
      // the sandbox's modules and the schema text are bundled in (scripts/build_npm.ts inlines it)
      const upstream = await startChildProcess({
        command: [binary, 'sandbox', '--port', '0'],
        cwd: folder,
        env: {},
        ready: /^(http:\/\/\S+)$/,
      });
      running.push(upstream);
      const example = upstream.lines.find((line) => line.trim().startsWith('e.g. '))!;
      const expected = `SVC_API_BASE=${upstream.url} SVC_TOKEN=${SANDBOX_TOKEN} ${binary}`;
      assert.equal(example.trim(), `e.g. ${expected}`, upstream.lines.join('\n'));
      const gateway = await startChildProcess({
        command: [binary],
        cwd: folder,
        env: { SVC_API_BASE: upstream.url, SVC_TOKEN: SANDBOX_TOKEN, PORT: '0' },
        ready: READY,
      });
      running.push(gateway);
      const res = await fetch(`${gateway.url}/svc/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: operationBody('MyBotRole', WORLD_IDS.bot1),
      });
      const body = await res.text();
      assert.equal(res.status, 200, body);
      assert.ok(body.includes('"data"') && !body.includes('"errors"'), body);
      for (const child of [gateway, upstream]) {
        await child.stop();
        assert.equal((await child.exited).code, 0, child.errors.join('\n'));
      }
    });
    await t.step('.env beside it, WORKERS=2: two workers, drained on SIGTERM', async () => {
      const dotenv = [`SVC_TOKEN=${SANDBOX_TOKEN}`, `SVC_API_BASE=${sandbox.url}`, 'PORT=0'];
      await Deno.writeTextFile(`${folder}/.env`, [...dotenv, 'WORKERS=2', ''].join('\n'));
      const workers = await startChildProcess({
        command: [binary],
        cwd: folder,
        env: {},
        ready: READY,
      });
      running.push(workers);
      assert.ok(workers.lines.at(-1)!.endsWith('(2 workers)'), workers.lines.join('\n'));
      assert.ok(workers.lines[0].includes(`upstream ${sandbox.url};`), workers.lines[0]);
      const children = await childrenOf(workers.pid);
      assert.equal(children.length, 2, `workers ${children}`);
      const health = await fetch(`${workers.url}/svc/healthz`);
      assert.equal(health.status, 200);
      await health.body?.cancel();
      const forwarding = ROUTE_TABLE.find((row) => row.name.startsWith('forwarding'))!;
      const before = forwarded(sandbox).length;
      await forwarding.run({ origin: workers.url, sandbox });
      assert.equal(forwarded(sandbox).length, before + 1);
      await workers.stop();
      assert.equal((await workers.exited).code, 0);
      for (const pid of [workers.pid, ...children]) assert.equal(await alive(pid), false, `${pid}`);
    });
  } finally {
    for (const child of running) await child.stop();
    await sandbox.close();
    await Deno.remove(root, { recursive: true });
  }
});
