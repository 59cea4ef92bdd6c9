/**
 * Refusals of the Host and Origin checks name the variable that would admit the caller, and the
 * log tells the operator which value was refused (docs/operations.md "Logs"), bounded: each value
 * once a window, at most DEFAULTS.refusedValueLogLines lines a window, a value quoted as JSON and
 * cut. On both hosts; nothing refused reaches the upstream.
 */
import assert from 'node:assert/strict';
import { DEFAULTS } from '../../src/config/defaults.ts';
import { RefusedValueLog } from '../../src/observability/refused_values.ts';
import { assertNothingReached } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { exchange, firstBody } from '../helpers/raw_socket.ts';
import { withGateway } from '../helpers/setup.ts';

Deno.test('the refused-value log: once a value a window, a bounded count, quoted and cut', () => {
  const lines: string[] = [];
  let now = 0;
  const log = new RefusedValueLog((l) => lines.push(l), {
    windowMs: 60_000,
    linesPerWindow: 3,
    valueChars: 10,
  }, () => now);
  log.note('Origin', 'https://a.example', 'not in ALLOWED_ORIGINS');
  log.note('Origin', 'https://a.example', 'not in ALLOWED_ORIGINS');
  assert.deepEqual(lines, ['svc-gateway: refused Origin "https://a.": not in ALLOWED_ORIGINS']);
  log.note('Host', 'x\r\ny', 'not in ALLOWED_HOSTS');
  assert.equal(lines[1], 'svc-gateway: refused Host "x\\r\\ny": not in ALLOWED_HOSTS');
  log.note('Host', null, 'absent');
  for (let i = 0; i < 50; i++) log.note('Host', `h${i}`, 'flood');
  assert.equal(lines.length, 3, 'at most 3 lines a window');
  now = 60_000;
  log.note('Origin', 'https://a.example', 'again');
  assert.match(lines[3], /refused 50 more requests .*\(not written\)/);
  assert.match(lines[4], /refused Origin "https:\/\/a\.": again/);
});

for (const kind of HOSTS) {
  Deno.test(`[${kind}] a refused Host or Origin names its variable, and the log names the value`, async () => {
    const env = { ALLOWED_HOSTS: 'gw.example', ALLOWED_ORIGINS: 'https://app.example' };
    await withGateway(kind, { env }, async ({ sandbox, gateway }) => {
      const post = (headers: Record<string, string>) =>
        fetch(`${gateway.url}/svc/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ query: '{ currentUser { id } }' }),
        });
      await assertNothingReached(sandbox, async () => {
        // fetch cannot set Host: the request goes out as written, over a raw socket
        const body = JSON.stringify({ query: '{ currentUser { id } }' });
        const host = await exchange(gateway.url, [
          [
            'POST /svc/graphql HTTP/1.1',
            'host: proxy.internal',
            'content-type: application/json',
            `content-length: ${body.length}`,
            'connection: close',
            '',
            body,
          ].join('\r\n'),
        ]);
        assert.deepEqual(host.statuses, [403], host.text);
        assert.match(JSON.parse(firstBody(host.text)).errors[0].message, /ALLOWED_HOSTS/);
        const origin = await post({ origin: 'https://other.example' });
        assert.equal(origin.status, 403);
        assert.match((await origin.json()).errors[0].message, /ALLOWED_ORIGINS/);
        for (let i = 0; i < DEFAULTS.refusedValueLogLines + 10; i++) {
          const res = await post({ origin: `https://flood-${i}.example` });
          assert.equal(res.status, 403);
          await res.body?.cancel();
        }
      });
      await new Promise((resolve) => setTimeout(resolve, 100)); // the child's lines arrive
      const refused = gateway.lines.filter((l) => l.startsWith('svc-gateway: refused '));
      assert.ok(
        refused.some((l) => l.includes('Host "proxy.internal"') && l.includes('ALLOWED_HOSTS')),
        refused.join('\n'),
      );
      assert.ok(
        refused.some((l) => l.includes('Origin "https://other.example"')),
        refused.join('\n'),
      );
      assert.equal(refused.length, DEFAULTS.refusedValueLogLines, refused.join('\n'));
    });
  });
}
