/**
 * `deno task demo --once` as a user runs it: a subprocess that starts the sandbox and both hosts
 * (the Node host from npm/, built by `deno task test` first), sends the demo traffic (HTTP, the
 * admin panel, a subscription through each host's relay, sign-up) and exits.
 * Asserts the exit code and the lines it printed; never a duration.
 */
import assert from 'node:assert/strict';
import { SANDBOX_TOKEN } from '../scripts/sandbox/mod.ts';

const ROOT = new URL('../', import.meta.url).pathname;

Deno.test('demo --once: both hosts answer the app documents and refuse before the upstream', async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      'run',
      '--allow-net',
      '--allow-env',
      '--allow-read',
      '--allow-run',
      '--allow-sys',
      '--allow-write',
      `${ROOT}scripts/demo.ts`,
      '--once',
    ],
    cwd: ROOT,
    stdout: 'piped',
    stderr: 'piped',
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, `demo exited ${output.code}\n${stdout}\n${stderr}`);

  const lines = stdout.split('\n');
  const has = (pattern: RegExp) =>
    assert.ok(lines.some((l) => pattern.test(l)), `no line matches ${pattern}\n${stdout}`);
  for (const kind of ['deno', 'node']) {
    for (const name of ['CurrentUser', 'MyBotRole', 'BotChannels', 'CreateFlowGroup']) {
      has(new RegExp(`^  \\[${kind}\\] ${name} +200 \\{"data":`));
    }
    has(new RegExp(`^  \\[${kind}\\] refused: foreign bot +403 BotNotAllowed .*\\(nothing\\)$`));
    has(
      new RegExp(
        `^  \\[${kind}\\] refused: introspection +403 IntrospectionBlocked .*\\(nothing\\)$`,
      ),
    );
    has(
      new RegExp(
        `^  \\[${kind}\\] refused: text/plain body +415 UnsupportedMediaType .*\\(nothing\\)$`,
      ),
    );
    has(
      new RegExp(
        `^  \\[${kind}\\] .*the upstream saw Bearer sand…\\(31 chars\\) \\(the master token`,
      ),
    );
  }
  for (const kind of ['deno', 'node']) {
    has(new RegExp(`^  \\[${kind}\\] admin: GET /overview without a session +401$`));
    has(
      new RegExp(
        `^  \\[${kind}\\] admin: POST /session .* 200 unlocked until .*HttpOnly; SameSite=Strict\\)$`,
      ),
    );
    has(
      new RegExp(
        `^  \\[${kind}\\] admin: GET /overview with cookie \\+ header 200 account Sandbox Owner: Workspace A \\(2 bots\\), Workspace B \\(1 bots\\)$`,
      ),
    );
  }
  for (const kind of ['deno', 'node']) {
    // the relay: a subscription's frames printed as received, a foreign bot refused in-band
    const at = `^  \\[${kind}\\] relay: `;
    has(new RegExp(`${at}<- connection_ack$`));
    has(new RegExp(`${at}<- next 1 \\{"data":\\{"unseenOpenDialogsCountChanged":\\d+\\}\\}$`));
    has(new RegExp(`${at}<- complete 1$`));
    has(
      new RegExp(
        `${at}<- error 2 \\[\\{"message":".*","extensions":\\{"code":"BotNotAllowed"\\}\\}\\]$`,
      ),
    );
    has(
      new RegExp(
        `${at}subscribe 2 refused in-band: BotNotAllowed; socket still open; upstream received nothing for it$`,
      ),
    );
    has(new RegExp(`${at}<- next 3 \\{"data":`));
    has(new RegExp(`${at}<- complete 3$`));
    has(new RegExp(`${at}socket closed 1000$`));
  }
  for (const kind of ['deno', 'node']) {
    const at = `^  \\[${kind}\\] sign-up: `;
    has(
      new RegExp(
        `${at}POST /svc/auth/provision +200 workspace role owner, first bot [0-9a-f]{24} "First bot"$`,
      ),
    );
    has(new RegExp(`${at}POST /svc/auth/bots +201 bot [0-9a-f]{24} "Second bot"$`));
    has(new RegExp(`${at}PATCH /svc/auth/bots/[0-9a-f]{24} 200 \\{"bot":`));
    has(new RegExp(`${at}POST /svc/graphql bot\\(id: [0-9a-f]{24}\\) 200 title "Renamed"$`));
    has(new RegExp(`${at}another user asks for that bot 403 \\w+$`));
  }
  assert.ok(!/svc_admin=[\w-]+\./.test(stdout), 'a cookie value printed');
  assert.equal(
    lines.filter((l) => /^ {2}svc-gateway listening on http:\/\/127\.0\.0\.1:\d+$/.test(l)).length,
    2,
  );
  assert.equal(lines.filter((l) => /^ {2}svc-gateway: gate off/.test(l)).length, 2);
  has(/^all answers as expected$/);
  assert.ok(!lines.some((l) => l.includes('WRONG')), stdout);
  assert.ok(!stdout.includes(SANDBOX_TOKEN) && !stderr.includes(SANDBOX_TOKEN), 'token printed');
});
