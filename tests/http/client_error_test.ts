/**
 * A connection's own errors on the node:http hosts (hosts/node_http/pipelined.ts `answerClientError`,
 * both hosts): bytes that are no request are answered 400, a head past node:http's header limit
 * 431, each with `Connection: close`, and the connection ends; nothing reaches the upstream. Bytes
 * that do not parse behind complete requests never overtake those requests' answers: each is
 * answered in turn, then the connection ends, with no 400 ahead of them (node:http on Deno would
 * otherwise write its 400 first).
 */
import assert from 'node:assert/strict';
import { assertNothingReached, forwarded } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { exchange } from '../helpers/raw_socket.ts';
import { withGateway } from '../helpers/setup.ts';

const Q = JSON.stringify({ query: '{ currentUser { id } }' });

function post(host: string): string {
  return `POST /svc/graphql HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\n` +
    `content-length: ${Q.length}\r\n\r\n${Q}`;
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] bytes that are no request: 400, a head too large: 431; then the end`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const host = new URL(gateway.url).host;
      await assertNothingReached(sandbox, async () => {
        const garbage = await exchange(gateway.url, ['\x81\x85abcdefghi\r\n\r\n']);
        assert.deepEqual(garbage.statuses, [400], garbage.text);
        assert.match(garbage.text, /\r\nConnection: close\r\n/i);
        assert.ok(garbage.closedByServer, 'the gateway ends the connection');
        const big = `GET /svc/healthz HTTP/1.1\r\nhost: ${host}\r\nx-pad: ${
          'a'.repeat(20 * 1024)
        }\r\n\r\n`;
        const tooLarge = await exchange(gateway.url, [big]);
        assert.deepEqual(tooLarge.statuses, [431], tooLarge.text);
        assert.ok(tooLarge.closedByServer, 'the gateway ends the connection');
      });
    });
  });

  Deno.test(`[${kind}] bytes that do not parse behind two requests: both answered in turn, then the end`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const host = new URL(gateway.url).host;
      const before = forwarded(sandbox).length;
      const res = await exchange(gateway.url, [`${post(host)}${post(host)}\x81\x85abcdefghi`]);
      assert.deepEqual(res.statuses, [200, 200], res.text);
      assert.ok(res.closedByServer, 'the gateway ends the connection after the answers');
      assert.equal(forwarded(sandbox).length, before + 2, 'both requests were forwarded');
    });
  });
}
