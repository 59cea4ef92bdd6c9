/**
 * Checks before any route on both hosts: host, origin, CORS, preflight,
 * refused upgrades, health and the security headers (SPEC "Checks before any
 * route", "Route table" health row, "Forwarding rules" security headers).
 */
import assert from 'node:assert/strict';
import {
  assertNothingReached,
  assertRefusal,
  assertSecurityHeaders,
  forwarded,
  postGraphql,
  rawRequest,
} from '../helpers/assertions.ts';
import { DENO_SERVE, HOSTS } from '../helpers/gateway.ts';
import { exchange } from '../helpers/raw_socket.ts';
import { withGateway } from '../helpers/setup.ts';

const Q = JSON.stringify({ query: '{ currentUser { id } }' });
const listed = 'https://app.example.com';

function post(hostHeader: string, extra = '') {
  return `POST /svc/graphql HTTP/1.1\r\nhost: ${hostHeader}\r\ncontent-type: application/json\r\ncontent-length: ${Q.length}${extra}`;
}

for (const kind of [...HOSTS, DENO_SERVE]) {
  Deno.test(`[${kind}] host check: listed, derived and loopback names pass; others 403 without CORS`, async () => {
    const env = {
      ALLOWED_HOSTS: 'gw.example.com',
      ALLOWED_ORIGINS: listed,
      PUBLIC_URL: 'https://pub.example.net',
    };
    await withGateway(kind, { env }, async ({ sandbox, gateway }) => {
      for (
        const host of [
          'gw.example.com',
          'gw.example.com:9999',
          'app.example.com',
          'pub.example.net',
          'localhost:1',
          '127.0.0.1',
        ]
      ) {
        const res = await rawRequest(gateway.url, post(host), Q);
        assert.equal(res.status, 200, `${host}: ${res.body}`);
      }
      await assertNothingReached(sandbox, async () => {
        const res = await rawRequest(gateway.url, post('evil.example', `\r\norigin: ${listed}`), Q);
        assert.equal(res.status, 403);
        assert.equal(JSON.parse(res.body).errors[0].extensions.code, 'ProxyHostForbidden');
        assert.equal(res.headers['access-control-allow-origin'], undefined);
        assert.equal(res.headers['cache-control'], 'no-store');
      });
    });
  });

  Deno.test(`[${kind}] origin check, CORS for a listed origin, preflight`, async () => {
    await withGateway(
      kind,
      { env: { ALLOWED_ORIGINS: `${listed}/` } },
      async ({ sandbox, gateway }) => {
        await assertNothingReached(sandbox, async () => {
          const foreign = await postGraphql(gateway.url, Q, { origin: 'https://evil.example' });
          await assertRefusal(foreign, 403, 'ProxyOriginForbidden');
          const metadataOnly = await postGraphql(gateway.url, Q, {
            'sec-fetch-site': 'cross-site',
          });
          await assertRefusal(metadataOnly, 403, 'ProxyOriginForbidden');
          const preflight = await fetch(`${gateway.url}/svc/graphql`, {
            method: 'OPTIONS',
            headers: { origin: listed },
          });
          assert.equal(preflight.status, 204);
          assert.equal(preflight.headers.get('access-control-allow-origin'), listed);
          assert.equal(
            preflight.headers.get('access-control-allow-methods'),
            'GET, POST, PATCH, DELETE, OPTIONS',
          );
          assert.equal(
            preflight.headers.get('access-control-allow-headers'),
            'authorization, content-type, x-svc-admin',
          );
          assert.equal(preflight.headers.get('access-control-max-age'), '600');
          assertSecurityHeaders(preflight);
          await preflight.body?.cancel();
        });
        const cors = await postGraphql(gateway.url, Q, { origin: 'HTTPS://APP.EXAMPLE.COM' });
        assert.equal(cors.status, 200);
        assert.equal(cors.headers.get('access-control-allow-origin'), 'HTTPS://APP.EXAMPLE.COM');
        assert.equal(cors.headers.get('access-control-allow-credentials'), 'true');
        assert.equal(cors.headers.get('vary'), 'origin');
        await cors.body?.cancel();
        const own = await postGraphql(gateway.url, Q, {
          origin: gateway.url.replace('http:', 'https:'),
        });
        assert.equal(own.status, 200, 'own host and port, scheme ignored');
        assert.equal(own.headers.get('access-control-allow-origin'), null);
        await own.body?.cancel();
        const same = await postGraphql(gateway.url, Q, {
          origin: 'https://evil.example',
          'sec-fetch-site': 'same-origin',
        });
        assert.equal(same.status, 200, 'Fetch Metadata same-origin passes');
        await same.body?.cancel();
        const before = forwarded(sandbox).length;
        const typed = await postGraphql(gateway.url, Q, {
          origin: 'https://evil.example',
          'sec-fetch-site': 'none',
        });
        assert.equal(typed.status, 200, 'Fetch Metadata none (typed or bookmarked) passes');
        assert.equal(typed.headers.get('access-control-allow-origin'), null, 'and gets no CORS');
        await typed.body?.cancel();
        assert.equal(forwarded(sandbox).length, before + 1, 'it reached the upstream');
        const bare = await postGraphql(gateway.url, Q);
        assert.equal(bare.status, 200, 'no Origin and no Fetch Metadata passes');
        await bare.body?.cancel();
        const refusedCors = await postGraphql(gateway.url, '{bad', { origin: listed });
        await assertRefusal(refusedCors.clone(), 400, 'ProxyMalformedQuery');
        assert.equal(
          refusedCors.headers.get('access-control-allow-origin'),
          listed,
          'refusals carry CORS too',
        );
        await refusedCors.body?.cancel();
      },
    );
  });

  Deno.test(`[${kind}] repeated Origin lines are read joined: a listed one beside a foreign one is refused`, async () => {
    // Web Headers join a repeated field with ", " (Fetch "get a header"); the node:http hosts
    // read node's raw header lines the same way, so a second Origin cannot hide behind a first
    await withGateway(kind, { env: { ALLOWED_ORIGINS: listed } }, async ({ sandbox, gateway }) => {
      const host = new URL(gateway.url).host;
      const twoOrigins = `\r\norigin: ${listed}\r\norigin: https://evil.example`;
      await assertNothingReached(sandbox, async () => {
        const posted = await rawRequest(gateway.url, post(host, twoOrigins), Q);
        assert.equal(posted.status, 403, posted.body);
        assert.equal(JSON.parse(posted.body).errors[0].extensions.code, 'ProxyOriginForbidden');
        const upgraded = await rawRequest(
          gateway.url,
          `GET /svc/graphql HTTP/1.1\r\nhost: ${host}\r\nconnection: Upgrade\r\nupgrade: websocket\r\n` +
            'sec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n' +
            `sec-websocket-protocol: graphql-transport-ws${twoOrigins}`,
        );
        assert.equal(upgraded.status, 403, upgraded.body);
      });
      const listedOnly = await rawRequest(gateway.url, post(host, `\r\norigin: ${listed}`), Q);
      assert.equal(listedOnly.status, 200, 'the listed origin alone passes');
    });
  });

  Deno.test(`[${kind}] refused and unclaimed upgrades answer before any socket exists`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const host = new URL(gateway.url).host;
      const upgrade = (path: string, extra: string) =>
        `GET ${path} HTTP/1.1\r\nhost: ${host}\r\nconnection: Upgrade\r\nupgrade: websocket\r\nsec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==${extra}`;
      await assertNothingReached(sandbox, async () => {
        const foreign = await rawRequest(
          gateway.url,
          upgrade(
            '/svc/graphql',
            '\r\nsec-websocket-protocol: graphql-transport-ws\r\norigin: https://evil.example',
          ),
        );
        assert.equal(foreign.status, 403);
        assert.equal(foreign.body, 'Forbidden');
        const noProtocol = await rawRequest(
          gateway.url,
          upgrade('/svc/graphql', '\r\nsec-websocket-protocol: graphql-ws'),
        );
        assert.equal(noProtocol.status, 403);
        // an upgrade on another path is not claimed: node:http's hosts destroy it, Deno.serve's
        // handler answers its own 404
        for (const path of ['/svc/elsewhere', '/svc/graphql/x', '/other']) {
          const unclaimed = await exchange(
            gateway.url,
            [`${upgrade(path, '\r\nsec-websocket-protocol: graphql-transport-ws')}\r\n\r\n`],
            { answers: 1 },
          );
          assert.ok(!unclaimed.statuses.includes(101), `${path}: ${unclaimed.text}`);
          if (kind === DENO_SERVE) assert.deepEqual(unclaimed.statuses, [404], path);
          else assert.equal(unclaimed.text, '', `${path}: destroyed without an answer`);
          assert.ok(unclaimed.closedByServer || kind === DENO_SERVE, path);
        }
      });
    });
  });

  Deno.test(`[${kind}] health and 404s carry the security headers; unclaimed paths are the host's 404`, async () => {
    await withGateway(kind, {}, async ({ gateway }) => {
      const health = await fetch(`${gateway.url}/svc/healthz`);
      assert.equal(health.status, 200);
      assert.deepEqual(await health.json(), { ok: true });
      assert.equal(health.headers.get('cache-control'), 'no-store');
      assertSecurityHeaders(health);
      const missing = await fetch(`${gateway.url}/svc/nothing-here`);
      assert.equal(missing.status, 404);
      assertSecurityHeaders(missing);
      await missing.body?.cancel();
    });
  });
}
