/**
 * `svc-gateway sandbox` as an app developer without a master token runs it (README.md
 * "Developing without a master token"): the packed npm package installed into a throwaway app,
 * the sandbox started from its bin, the URL and token read from what it prints, the gateway (the
 * same bin) started with exactly the two variables it printed, then a GraphQL POST answered 200
 * with the sandbox account's bot, and a subscription relayed to its end. SIGTERM stops both
 * (exit 0). Its own words, through `npx svc-gateway sandbox` as the README writes it: `--help`, a
 * bad port (exit 2), a port in use (exit 1). The token it prints is the sandbox's fixed test value
 * (scripts/sandbox/server.ts).
 *
 * The two long-running processes run as `node_modules/.bin/svc-gateway`, the file npx runs: npx
 * (npm exec) runs it under `sh -c` and passes a SIGTERM sent to npx alone to that shell, not to
 * the bin, which then outlives it. A terminal's Ctrl-C reaches the whole process group, the bin
 * included; npx then exits 130 for the signal.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, startChildProcess } from '../../scripts/host_process.ts';
import { SANDBOX_TOKEN, WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { subscribeToEnd } from './subscribe.ts';
import { SANDBOX_PORT } from '../../scripts/sandbox/program.ts';
import { blocksOf, userDocs } from '../docs/docs.ts';
import { createPackageApp } from './package_app.ts';

/** The sandbox prints its URL alone on its first line. */
const SANDBOX_READY = /^(http:\/\/\S+)$/;
const GATEWAY_READY = /listening on (http:\/\/\S+)/;
const BOT_QUERY = 'query Bot($botID: BotID!) { bot(id: $botID) { id title } }';

/** The bin as npx runs it, inside the app. */
const BIN = 'node_modules/.bin/svc-gateway';

/**
 * The README's copy of what the sandbox prints (the `text` block of "Developing without a master
 * token"), listening at `url`'s address instead of the default port's.
 */
function readmeCopy(url: string): string[] {
  const readme = userDocs().find((doc) => doc.path === 'README.md')!;
  const section = readme.text.indexOf('### Developing without a master token');
  const before = readme.text.slice(0, section).split('\n').length;
  const block = blocksOf(readme).find((b) => b.lang === 'text' && b.line >= before)!;
  return block.text.replaceAll(`127.0.0.1:${SANDBOX_PORT}`, new URL(url).host).split('\n');
}

/** Runs `npx svc-gateway <args>` in `dir` to its end. */
async function npx(dir: string, ...args: string[]) {
  const out = await new Deno.Command('npx', {
    args: ['svc-gateway', ...args],
    cwd: dir,
    stdout: 'piped',
    stderr: 'piped',
  }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

/** The `NAME=value` lines the sandbox printed for the gateway. */
function printedVariables(lines: string[]): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const line of lines) {
    const m = /^(SVC_API_BASE|SVC_TOKEN)=(\S+)$/.exec(line);
    if (m) variables[m[1]] = m[2];
  }
  return variables;
}

Deno.test('svc-gateway sandbox: the printed variables run the gateway against it', async (t) => {
  const app = await createPackageApp({});
  const running: ChildProcess[] = [];
  try {
    const sandbox = await startChildProcess({
      command: [BIN, 'sandbox', '--port', '0'],
      cwd: app.dir,
      env: {},
      ready: SANDBOX_READY,
    });
    running.push(sandbox);
    const variables = printedVariables(sandbox.lines);

    await t.step('it prints its URL, its token and the two variables', () => {
      const printed = sandbox.lines.join('\n');
      assert.match(sandbox.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.deepEqual(variables, { SVC_API_BASE: sandbox.url, SVC_TOKEN: SANDBOX_TOKEN });
      assert.ok(sandbox.lines.includes(`token: ${SANDBOX_TOKEN}`), printed);
      assert.ok(printed.includes('no master token'), printed);
      const example = `SVC_API_BASE=${sandbox.url} SVC_TOKEN=${SANDBOX_TOKEN} npx svc-gateway`;
      assert.ok(sandbox.lines.some((line) => line.trim() === `e.g. ${example}`), printed);
      assert.ok(printed.includes(WORLD_IDS.bot1), printed);
      assert.deepEqual(sandbox.errors, []);
      assert.deepEqual(sandbox.lines, readmeCopy(sandbox.url), "the README's copy");
    });

    const gateway = await startChildProcess({
      command: [BIN],
      cwd: app.dir,
      env: { ...variables, PORT: '0' },
      ready: GATEWAY_READY,
    });
    running.push(gateway);

    await t.step(
      'a GraphQL POST through the gateway: 200, the sandbox account answers',
      async () => {
        const res = await fetch(`${gateway.url}/svc/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: BOT_QUERY, variables: { botID: WORLD_IDS.bot1 } }),
        });
        const body = await res.text();
        assert.equal(res.status, 200, body);
        assert.deepEqual(JSON.parse(body), {
          data: { bot: { id: WORLD_IDS.bot1, title: 'Bot 1' } },
        });
      },
    );

    await t.step('a subscription is relayed to its end', async () => {
      const payloads = await subscribeToEnd(gateway.url);
      assert.equal(payloads.length, 3, JSON.stringify(payloads));
      for (const payload of payloads) {
        const data = (payload as { data?: Record<string, unknown> }).data;
        assert.equal(typeof data?.unseenOpenDialogsCountChanged, 'number', JSON.stringify(payload));
      }
    });

    await t.step('SIGTERM stops both: exit 0', async () => {
      for (const child of [gateway, sandbox]) {
        await child.stop();
        assert.equal((await child.exited).code, 0, child.errors.join('\n'));
      }
      assert.ok(!gateway.lines.join('\n').includes(SANDBOX_TOKEN), 'the gateway never prints it');
    });

    await t.step('--help; a bad port exits 2; a port in use exits 1 naming --port 0', async () => {
      const help = await npx(app.dir, 'sandbox', '--help');
      assert.equal(help.code, 0, help.stderr);
      assert.match(help.stdout, /^usage: svc-gateway sandbox \[--port N\]/);
      assert.ok(help.stdout.includes('default 8100'), help.stdout);
      const bad = await npx(app.dir, 'sandbox', '--port', '65536');
      assert.equal(bad.code, 2);
      assert.ok(bad.stderr.includes('--port is a whole number from 0 to 65535'), bad.stderr);
      const taken = Deno.listen({ hostname: '127.0.0.1', port: 0 });
      try {
        const port = String((taken.addr as Deno.NetAddr).port);
        const busy = await npx(app.dir, 'sandbox', '--port', port);
        assert.equal(busy.code, 1);
        assert.ok(busy.stderr.includes(`cannot listen on 127.0.0.1:${port}`), busy.stderr);
        assert.ok(busy.stderr.includes('--port 0 for any free port'), busy.stderr);
      } finally {
        taken.close();
      }
    });
  } finally {
    for (const child of running) await child.stop();
    await app.remove();
  }
});
