/**
 * The Host check reads one whole host (SPEC "Checks before any route" 1), on both hosts, over
 * raw TCP sockets (node:net) so the Host lines go out exactly as written: a value that is not the
 * URL standard's host plus an optional numeric port is 403 ProxyHostForbidden, a request without
 * Host (HTTP/1.0) too, and two Host lines are 400 (RFC 9112 section 3.2); the socket upgrade reads
 * the same parse. Every refusal reaches nothing upstream.
 */
import assert from 'node:assert/strict';
import { assertNothingReached, forwarded } from '../helpers/assertions.ts';
import { DENO_SERVE, HOSTS } from '../helpers/gateway.ts';
import { exchange, firstBody, upgradeRequest as upgrade } from '../helpers/raw_socket.ts';
import { withGateway } from '../helpers/setup.ts';

const Q = JSON.stringify({ query: '{ currentUser { id } }' });

/** A POST of Q with the given header lines (no Host line unless one is given). */
function post(lines: string[], version = 'HTTP/1.1'): string {
  return [
    `POST /svc/graphql ${version}`,
    ...lines,
    'content-type: application/json',
    `content-length: ${Q.length}`,
    'connection: close',
    '',
    Q,
  ].join('\r\n');
}

/** Host values that are no host (or a listed or loopback name with something after it). */
const NOT_A_HOST = [
  'localhost@evil.example',
  'gw.example.com@evil.example',
  '[::1]junk',
  '[::1]:80x',
  'localhost:80x',
  'localhost:99999',
  'localhost:',
  'local host',
  'localhost/evil',
  'localhost?x',
  'localhost#x',
  'local%68ost',
  '1.2.3.4.5',
  '',
];

for (const kind of [...HOSTS, DENO_SERVE]) {
  Deno.test(`[${kind}] the Host check parses one host and an optional port, else 403`, async () => {
    await withGateway(kind, { env: { ALLOWED_HOSTS: 'gw.example.com' } }, async (s) => {
      const { sandbox, gateway } = s;
      for (
        const host of ['gw.example.com:8443', 'GW.example.com', '[::1]:1', 'LOCALHOST', '127.1']
      ) {
        const res = await exchange(gateway.url, [post([`host: ${host}`])]);
        assert.deepEqual(res.statuses, [200], `${host}: ${res.text}`);
      }
      const before = forwarded(sandbox).length;
      await assertNothingReached(sandbox, async () => {
        for (const host of NOT_A_HOST) {
          const res = await exchange(gateway.url, [post([`host: ${host}`])]);
          assert.deepEqual(res.statuses, [403], `${JSON.stringify(host)}: ${res.text}`);
          assert.equal(
            JSON.parse(firstBody(res.text)).errors[0].extensions.code,
            'ProxyHostForbidden',
            host,
          );
        }
        const noHost = await exchange(gateway.url, [post([], 'HTTP/1.0')]);
        assert.deepEqual(noHost.statuses, [403], `no Host: ${noHost.text}`);
        assert.match(firstBody(noHost.text), /ProxyHostForbidden/);
        // HTTP/1.1 without Host: node:http (both hosts) answers 400 itself (requireHostHeader),
        // Deno.serve passes it on and the Host check refuses it
        const noHost11 = await exchange(gateway.url, [post([])]);
        assert.deepEqual(noHost11.statuses, [kind === DENO_SERVE ? 403 : 400], noHost11.text);
      });
      assert.equal(forwarded(sandbox).length, before);
    });
  });

  Deno.test(`[${kind}] two Host lines are 400, whichever comes first; the upgrade too`, async () => {
    await withGateway(kind, { env: { ALLOWED_HOSTS: 'gw.example.com' } }, async (s) => {
      const { sandbox, gateway } = s;
      await assertNothingReached(sandbox, async () => {
        for (
          const lines of [
            ['host: localhost', 'host: evil.example'],
            ['host: evil.example', 'host: localhost'],
            ['host: gw.example.com', 'Host: gw.example.com'],
          ]
        ) {
          const res = await exchange(gateway.url, [post(lines)]);
          assert.deepEqual(res.statuses, [400], `${lines}: ${res.text}`);
          const health = await exchange(gateway.url, [
            ['GET /svc/healthz HTTP/1.1', ...lines, 'connection: close', '', ''].join('\r\n'),
          ]);
          assert.deepEqual(health.statuses, [400], `health ${lines}: ${health.text}`);
        }
        const twice = await exchange(gateway.url, [upgrade(['host: localhost', 'host: evil.ex'])], {
          answers: 1,
        });
        assert.deepEqual(twice.statuses, [400], twice.text);
        for (const host of ['localhost@evil.example', '[::1]junk', 'localhost:80x']) {
          const res = await exchange(gateway.url, [upgrade([`host: ${host}`])], { answers: 1 });
          assert.deepEqual(res.statuses, [403], `${host}: ${res.text}`);
          assert.equal(firstBody(res.text), 'Forbidden');
        }
        const noHost = await exchange(gateway.url, [
          upgrade([]).replace('HTTP/1.1', 'HTTP/1.0'),
        ], { answers: 1 });
        assert.deepEqual(noHost.statuses, [403], noHost.text);
      });
    });
  });
}
