/**
 * Every header line the header-size ceiling admits is read (docs/routes.md "Header lines"): node's
 * parser would otherwise drop, without a word, every line past its maxHeadersCount (2,000 on Node,
 * about 1,000 on Deno's node:http), so a line written after the filler would never reach the
 * checks of SPEC "Checks before any route". On every host, after 2,000 filler lines: a foreign
 * Origin is 403, a cross-site Fetch Metadata line is 403, a second Host line is 400; the upgrade
 * too; a head past the size ceiling is 431. Deno.serve (the worker mode) reads at most about 100
 * lines and refuses a head with more (400) before the handler runs: it refuses rather than drops,
 * which the rule allows. Nothing refused reaches the upstream.
 */
import assert from 'node:assert/strict';
import { assertNothingReached } from '../helpers/assertions.ts';
import { DENO_SERVE, HOSTS } from '../helpers/gateway.ts';
import { exchange, firstBody, upgradeRequest } from '../helpers/raw_socket.ts';
import { withGateway } from '../helpers/setup.ts';

const Q = JSON.stringify({ query: '{ currentUser { id } }' });

/** 2,000 short lines (12 KB): past node's maxHeadersCount, under its 16 KiB header ceiling. */
const FILLER = Array.from({ length: 2_000 }, () => 'x: 1');

/** A POST of Q: Host, then the filler, then `last`. */
function post(last: string[]): string {
  return [
    'POST /svc/graphql HTTP/1.1',
    'host: localhost',
    'content-type: application/json',
    `content-length: ${Q.length}`,
    'connection: close',
    ...FILLER,
    ...last,
    '',
    Q,
  ].join('\r\n');
}

/** The code of the envelope in the first answer of `text`. */
function codeOf(text: string): string | undefined {
  return JSON.parse(firstBody(text)).errors?.[0]?.extensions?.code;
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] a line after 2,000 header lines is read: Origin, Fetch Metadata, Host`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const plain = await exchange(gateway.url, [post([])]);
      assert.deepEqual(plain.statuses, [200], `the filler alone: ${plain.text.slice(0, 300)}`);
      await assertNothingReached(sandbox, async () => {
        const origin = await exchange(gateway.url, [post(['origin: https://evil.example'])]);
        assert.deepEqual(origin.statuses, [403], origin.text.slice(0, 300));
        assert.equal(codeOf(origin.text), 'ProxyOriginForbidden');
        const site = await exchange(gateway.url, [post(['sec-fetch-site: cross-site'])]);
        assert.deepEqual(site.statuses, [403], site.text.slice(0, 300));
        assert.equal(codeOf(site.text), 'ProxyOriginForbidden');
        const host = await exchange(gateway.url, [post(['host: evil.example'])]);
        assert.deepEqual(host.statuses, [400], host.text.slice(0, 300));
        const upgrade = upgradeRequest(['host: localhost', ...FILLER, 'origin: https://evil.ex']);
        const refused = await exchange(gateway.url, [upgrade], { answers: 1 });
        assert.deepEqual(refused.statuses, [403], refused.text.slice(0, 300));
      });
    });
  });

  Deno.test(`[${kind}] a request head past the header-size ceiling is 431`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      await assertNothingReached(sandbox, async () => {
        const lines = Array.from({ length: 4_000 }, (_, i) => `x${i}: 1`);
        const res = await exchange(gateway.url, [post(lines)]);
        assert.deepEqual(res.statuses, [431], res.text.slice(0, 300));
      });
    });
  });
}

Deno.test(`[${DENO_SERVE}] a head of more lines than Deno.serve reads is refused 400, never served`, async () => {
  await withGateway(DENO_SERVE, {}, async ({ sandbox, gateway }) => {
    await assertNothingReached(sandbox, async () => {
      for (const last of [[], ['origin: https://evil.example'], ['host: evil.example']]) {
        const res = await exchange(gateway.url, [post(last)]);
        assert.deepEqual(res.statuses, [400], `${last}: ${res.text.slice(0, 300)}`);
      }
    });
  });
});
