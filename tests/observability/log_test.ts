/**
 * The json log format (docs/operations.md "Logs") on both hosts: one access line per answer with
 * time, level, route, status, code, durationMs and requestId; the startup lines unchanged; no
 * token in any line. The default (text) writes no access line.
 */
import assert from 'node:assert/strict';
import { postGraphql } from '../helpers/assertions.ts';
import { type Gateway, HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';
import { refusedTextPlain } from './helpers.ts';
import { SANDBOX_TOKEN, WORLD_IDS } from '../../scripts/sandbox/mod.ts';

const OK = {
  query: 'query DealsIndicator($botID: BotID!) { bot(id: $botID) { id dealsPageIndicatorActive } }',
  variables: { botID: WORLD_IDS.bot1 },
};

async function accessLines(gateway: Gateway, count: number): Promise<Record<string, unknown>[]> {
  const found = () =>
    gateway.lines.filter((l) => l.startsWith('{') && l.includes('"requestId"')).map((l) =>
      JSON.parse(l)
    );
  // The Node child's stdout arrives a little after its answers.
  for (let i = 0; i < 100 && found().length < count; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return found();
}

async function sendTwo(gateway: Gateway): Promise<void> {
  const res = await postGraphql(gateway.url, OK);
  await res.body?.cancel();
  assert.equal(res.status, 200);
  await refusedTextPlain(gateway.url);
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] LOG_FORMAT=json: one access line per answer`, async () => {
    await withGateway(kind, { env: { LOG_FORMAT: 'json' } }, async ({ gateway }) => {
      assert.match(gateway.lines[0], /^svc-gateway: /, 'startup lines stay human');
      await sendTwo(gateway);
      const lines = await accessLines(gateway, 2);
      assert.equal(lines.length, 2, gateway.lines.join('\n'));
      const [ok, refused] = lines;
      assert.deepEqual(
        { route: ok.route, status: ok.status, code: ok.code, level: ok.level },
        { route: 'graphql', status: 200, code: null, level: 'info' },
      );
      assert.deepEqual(
        { route: refused.route, status: refused.status, code: refused.code, level: refused.level },
        { route: 'graphql', status: 415, code: 'UnsupportedMediaType', level: 'warn' },
      );
      for (const line of lines) {
        assert.ok(!Number.isNaN(Date.parse(line.time as string)), 'time is ISO 8601');
        assert.equal(typeof line.durationMs, 'number');
        assert.match(line.requestId as string, /^[0-9a-f-]{36}$/);
      }
      assert.notEqual(ok.requestId, refused.requestId);
      assert.ok(!gateway.lines.some((l) => l.includes(SANDBOX_TOKEN)), 'no token in the log');
    });
  });

  Deno.test(`[${kind}] the default text log writes no access line`, async () => {
    await withGateway(kind, {}, async ({ gateway }) => {
      await sendTwo(gateway);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(gateway.lines.filter((l) => l.includes('requestId')).length, 0);
    });
  });
}
