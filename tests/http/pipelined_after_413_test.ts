/**
 * Nothing is served on a connection after its 413 (SPEC "Size and capacity": the 413 is sent
 * with connection: close), on both hosts, over raw TCP sockets: an oversize body (declared, or
 * chunked past the ceiling) followed on the same connection by a well-formed GraphQL request;
 * the second reaches no route and nothing reaches the upstream. Also a small oversize body (the
 * admin panel's /session, 4 KiB) sent in one write with the next request, or with a relay upgrade
 * and its connection_init, where node:http has parsed the next request before the 413 is written;
 * and two ordinary pipelined requests are still both answered, in order; bytes that do not parse
 * behind them (the frame) never put a 400 ahead of the 413. Also on the Deno.serve handler of
 * `deno task serve:parallel`, whose tracker of closing connections is filled past its bound in
 * tests/hosts/deno_closing_connections_test.ts.
 */
import assert from 'node:assert/strict';
import { assertNothingReached } from '../helpers/assertions.ts';
import { DENO_SERVE, HOSTS } from '../helpers/gateway.ts';
import { exchange, upgradeRequest } from '../helpers/raw_socket.ts';
import { withGateway } from '../helpers/setup.ts';

const Q = JSON.stringify({ query: '{ currentUser { id } }' });
const OVER = 2 * 1024 * 1024 + 64 * 1024;

function head(host: string, framing: string): string {
  return `POST /svc/graphql HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\n${framing}\r\n\r\n`;
}

/** The oversize request's bytes: declared by content-length, or chunked past the ceiling. */
function oversize(host: string, shape: 'declared' | 'chunked'): Uint8Array[] {
  const enc = (s: string) => new TextEncoder().encode(s);
  if (shape === 'declared') {
    return [enc(head(host, `content-length: ${OVER}`)), new Uint8Array(OVER).fill(32)];
  }
  const piece = new Uint8Array(64 * 1024).fill(32);
  const parts = [enc(head(host, 'transfer-encoding: chunked'))];
  for (let sent = 0; sent < OVER; sent += piece.byteLength) {
    parts.push(enc(`${piece.byteLength.toString(16)}\r\n`), piece, enc('\r\n'));
  }
  parts.push(enc('0\r\n\r\n'));
  return parts;
}

for (const kind of [...HOSTS, DENO_SERVE]) {
  Deno.test(`[${kind}] a request pipelined behind an oversize body reaches nothing`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const host = new URL(gateway.url).host;
      const next = `${head(host, `content-length: ${Q.length}`)}${Q}`;
      const alone = await exchange(gateway.url, [next], { answers: 1 });
      assert.deepEqual(alone.statuses, [200], 'the second request on its own is forwarded');
      for (const shape of ['declared', 'chunked'] as const) {
        await assertNothingReached(sandbox, async () => {
          const res = await exchange(gateway.url, [...oversize(host, shape), next]);
          assert.equal(res.statuses[0], 413, `${shape}: ${res.text.slice(0, 200)}`);
          assert.ok(!res.statuses.includes(200), `${shape}: ${res.statuses}`);
          assert.ok(!res.text.includes('currentUser'), `${shape}: no answer of a route`);
          assert.ok(res.closedByServer, `${shape}: the gateway ends the connection`);
        });
      }
    });
  });
}

/** A masked client text frame (RFC 6455 section 5.3), for a frame sent in the same write. */
function clientFrame(text: string): Uint8Array {
  const payload = new TextEncoder().encode(text);
  const mask = [1, 2, 3, 4];
  return new Uint8Array([
    0x81,
    0x80 | payload.length,
    ...mask,
    ...payload.map((b, i) => b ^ mask[i % 4]),
  ]);
}

for (const kind of [...HOSTS, DENO_SERVE]) {
  Deno.test(`[${kind}] a request or upgrade in the same write as a small oversize body reaches nothing`, async () => {
    const env = { ADMIN_PASSWORD: 'a-long-enough-admin-password' };
    await withGateway(kind, { env }, async ({ sandbox, gateway }) => {
      const host = new URL(gateway.url).host;
      const next = `${head(host, `content-length: ${Q.length}`)}${Q}`;
      const twice = await exchange(gateway.url, [next + next], { answers: 2 });
      assert.deepEqual(twice.statuses, [200, 200], 'two pipelined requests are both answered');
      const small = 'x'.repeat(5000);
      const admin = (framing: string, body: string) =>
        `POST /svc/admin/session HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\n${framing}\r\n\r\n${body}`;
      const upgrade = upgradeRequest([`host: ${host}`]);
      const oversize = [
        admin(`content-length: ${small.length}`, small),
        admin(
          'transfer-encoding: chunked',
          `${small.length.toString(16)}\r\n${small}\r\n0\r\n\r\n`,
        ),
      ];
      for (const first of oversize) {
        for (const behind of [next, upgrade]) {
          await assertNothingReached(sandbox, async () => {
            const bytes = new TextEncoder().encode(first + behind);
            const init = clientFrame('{"type":"connection_init"}');
            const res = await exchange(gateway.url, [new Uint8Array([...bytes, ...init])]);
            const what = `${first.slice(0, 60)} + ${behind.slice(0, 20)}: ${res.statuses}`;
            assert.equal(res.statuses[0], 413, what);
            assert.ok(!res.statuses.includes(200) && !res.statuses.includes(101), what);
            assert.ok(res.closedByServer, what);
            // the gateway's answers are in; a request still on its way would be in flight now
            await new Promise((resolve) => setTimeout(resolve, 100));
          });
        }
      }
    });
  });
}
