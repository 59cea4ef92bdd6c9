/**
 * The admin session over real HTTP on both hosts: mounting states, unlock, read, sign out, the
 * header and cookie rules, forged / tampered / expired / cross-salt / foreign-deployment
 * cookies, same-origin only, the body ceilings, the password never answered nor logged (SPEC
 * "Admin panel: /svc/admin", "Authentication" 4, "Configuration states").
 */
import assert from 'node:assert/strict';
import { signAdminCookie } from '../../src/routes/admin/cookie.ts';
import { resolveConfig } from '../../src/config/resolve.ts';
import { SANDBOX_TOKEN } from '../../scripts/sandbox/mod.ts';
import {
  assertNothingReached,
  assertRefusal,
  assertSecurityHeaders,
} from '../helpers/assertions.ts';
import { HOSTS, startGateway } from '../helpers/gateway.ts';
import { sandboxEnv, withGateway } from '../helpers/setup.ts';
import { admin, cookieOf, FAST, json, PASSWORD, unlock } from './helpers.ts';

const ENV = { ADMIN_PASSWORD: PASSWORD };

for (const kind of HOSTS) {
  Deno.test(`[${kind}] panel off: not claimed; weak password: 500 everywhere, health 503`, async () => {
    await withGateway(kind, {}, async ({ gateway }) => {
      const res = await admin(gateway.url, '/session', { method: 'POST', body: { password: 'x' } });
      assert.equal(res.status, 404);
      assert.notEqual(res.headers.get('content-type'), 'application/json; charset=utf-8');
      await res.body?.cancel();
    });
    await withGateway(
      kind,
      { env: { ADMIN_PASSWORD: 'fifteen-chars!!' } },
      async ({ sandbox, gateway }) => {
        await assertNothingReached(sandbox, async () => {
          for (
            const [path, method] of [['/session', 'POST'], ['/overview', 'GET'], ['/nope', 'GET']]
          ) {
            const res = await admin(gateway.url, path, {
              method,
              body: method === 'POST' ? { password: 'fifteen-chars!!' } : undefined,
            });
            await assertRefusal(res, 500, 'AdminMisconfigured');
          }
        });
        const health = await fetch(`${gateway.url}/svc/healthz`);
        assert.deepEqual(await json(health, 503), { ok: false });
        assert.ok(gateway.lines.some((l) => l.includes('ProxyAdminPasswordWeak')));
        assert.ok(!gateway.lines.join('\n').includes('fifteen-chars!!'));
      },
    );
  });

  Deno.test(`[${kind}] unlock, read, use, sign out; the password is never answered or logged`, async () => {
    await withGateway(kind, { env: ENV, options: FAST }, async ({ sandbox, gateway }) => {
      const res = await admin(gateway.url, '/session', {
        method: 'POST',
        body: { password: PASSWORD },
        header: null,
      });
      const text = await res.text();
      assert.equal(res.status, 200, text);
      assertSecurityHeaders(res);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      const set = res.headers.get('set-cookie')!;
      // plain http on 127.0.0.1: no Secure; the rest always
      assert.match(
        set,
        /^svc_admin=[\w-]+\.[\w-]+\.[\w-]+; Max-Age=7200; Path=\/; HttpOnly; SameSite=Strict$/,
      );
      const answer = JSON.parse(text);
      assert.equal(answer.unlocked, true);
      const left = Date.parse(answer.expiresAt) - Date.now();
      assert.ok(left > 7_000_000 && left <= 7_200_000, `expires in ${left} ms`);
      assert.ok(!text.includes(PASSWORD) && !set.includes(PASSWORD));
      const cookie = cookieOf(res)!;

      const read = await json(await admin(gateway.url, '/session', { cookie }));
      assert.deepEqual(read, answer);
      const overview = await json<{ account: { id: string }; workspaces: unknown[] }>(
        await admin(gateway.url, '/overview', { cookie }),
      );
      assert.equal(overview.account.id, sandbox.world.user.id);
      assert.equal(sandbox.received.at(-1)?.search, '?op=SvcAdminOverview');

      const out = await admin(gateway.url, '/session', { method: 'DELETE', cookie });
      assert.deepEqual(await json(out), { unlocked: false, expiresAt: null });
      assert.match(
        out.headers.get('set-cookie')!,
        /^svc_admin=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=\/; HttpOnly; SameSite=Strict$/,
      );
      const all = gateway.lines.join('\n');
      assert.ok(!all.includes(PASSWORD) && !all.includes(SANDBOX_TOKEN), 'no secret in the log');
    });
  });

  Deno.test(`[${kind}] refused: no header, no cookie, forged, tampered, expired, cross-salt, other deployment`, async () => {
    await withGateway(kind, { env: ENV, options: FAST }, async ({ sandbox, gateway }) => {
      const cookie = await unlock(gateway.url);
      const value = cookie.slice('svc_admin='.length);
      const [h, p, s] = value.split('.');
      const here = resolveConfig({}, { ...sandboxEnv(sandbox), ...ENV });
      const secrets = { password: PASSWORD, cookieSalt: here.admin.cookieSalt };
      const expired = (await signAdminCookie(secrets, Date.now() - 7_300_000)).value;
      const otherSalt = (await signAdminCookie({ ...secrets, cookieSalt: 'another-salt' })).value;
      const otherPassword =
        (await signAdminCookie({ ...secrets, password: `${PASSWORD}-2` })).value;
      const foreignConfig = resolveConfig({}, { ...ENV, SVC_TOKEN: 'another-deployment-token' });
      const foreign =
        (await signAdminCookie({ password: PASSWORD, cookieSalt: foreignConfig.admin.cookieSalt }))
          .value;
      const payload = JSON.parse(atob(p.replace(/-/g, '+').replace(/_/g, '/')));
      const stretched = btoa(JSON.stringify({ ...payload, exp: payload.exp + 86_400 }))
        .replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
      const cases: [string, { cookie?: string | null; header?: string | null }][] = [
        ['cookie without header', { cookie, header: null }],
        ['empty header', { cookie, header: '' }],
        ['header without cookie', { cookie: null }],
        ['garbage', { cookie: 'svc_admin=not-a-token' }],
        ['tampered payload', { cookie: `svc_admin=${h}.${stretched}.${s}` }],
        ['tampered signature', { cookie: `svc_admin=${h}.${p}.${s.slice(0, -2)}AA` }],
        ['unsigned', { cookie: `svc_admin=${btoa('{"alg":"none"}').replace(/=+$/, '')}.${p}.` }],
        ['expired', { cookie: `svc_admin=${expired}` }],
        ['cross-salt', { cookie: `svc_admin=${otherSalt}` }],
        ['other password', { cookie: `svc_admin=${otherPassword}` }],
        ['other deployment', { cookie: `svc_admin=${foreign}` }],
      ];
      await assertNothingReached(sandbox, async () => {
        for (const [what, call] of cases) {
          for (
            const [path, method] of [['/overview', 'GET'], ['/session', 'GET'], [
              '/session',
              'DELETE',
            ], ['/bots', 'POST']]
          ) {
            const res = await admin(gateway.url, path, {
              ...call,
              method,
              body: method === 'POST' ? { workspaceId: 'w', name: 'n' } : undefined,
            });
            const message = await assertRefusal(res, 401, 'AdminSessionRequired');
            assert.ok(!message.includes(PASSWORD), what);
            assert.equal(res.headers.get('set-cookie'), null, what);
          }
        }
      });
      // the real cookie still works
      await json(await admin(gateway.url, '/session', { cookie }));
    });
  });

  Deno.test(`[${kind}] another deployment's gateway refuses this one's cookie (salt from token)`, async () => {
    await withGateway(kind, { env: ENV, options: FAST }, async ({ sandbox, gateway }) => {
      const cookie = await unlock(gateway.url);
      const other = await startGateway(
        kind,
        FAST,
        sandboxEnv(sandbox, { ...ENV, ADMIN_COOKIE_SALT: 'deployment-two' }),
      );
      try {
        await assertRefusal(
          await admin(other.url, '/session', { cookie }),
          401,
          'AdminSessionRequired',
        );
        const second = await unlock(other.url);
        await assertRefusal(
          await admin(gateway.url, '/session', { cookie: second }),
          401,
          'AdminSessionRequired',
        );
      } finally {
        await other.stop();
      }
    });
  });

  Deno.test(`[${kind}] same-origin only: a listed cross-origin caller is refused; own origin passes`, async () => {
    const listed = 'https://app.example.com';
    await withGateway(
      kind,
      { env: { ...ENV, ALLOWED_ORIGINS: listed }, options: FAST },
      async ({ sandbox, gateway }) => {
        const cookie = await unlock(gateway.url);
        await assertNothingReached(sandbox, async () => {
          for (
            const headers of <Record<string, string>[]> [{ origin: listed }, {
              origin: listed,
              'sec-fetch-site': 'cross-site',
            }, { origin: 'https://evil.example' }]
          ) {
            const res = await admin(gateway.url, '/overview', { cookie, headers });
            await assertRefusal(res, 403, 'ProxyOriginForbidden');
            assert.equal(res.headers.get('access-control-allow-origin'), null);
            const unlockTry = await admin(gateway.url, '/session', {
              method: 'POST',
              body: { password: PASSWORD },
              headers,
            });
            await assertRefusal(unlockTry, 403, 'ProxyOriginForbidden');
            assert.equal(unlockTry.headers.get('set-cookie'), null);
          }
          const pre = await fetch(`${gateway.url}/svc/admin/overview`, {
            method: 'OPTIONS',
            headers: { origin: listed },
          });
          await assertRefusal(pre, 403, 'ProxyOriginForbidden');
        });
        const own = new URL(gateway.url).origin;
        const res = await admin(gateway.url, '/session', {
          cookie,
          headers: { origin: own, 'sec-fetch-site': 'same-origin' },
        });
        await json(res);
        // the GraphQL route still serves the listed origin
        const gql = await fetch(`${gateway.url}/svc/graphql`, {
          method: 'POST',
          headers: { origin: listed, 'content-type': 'application/json' },
          body: JSON.stringify({ query: '{ currentUser { id } }' }),
        });
        assert.equal(gql.headers.get('access-control-allow-origin'), listed);
        await gql.body?.cancel();
      },
    );
  });

  Deno.test(`[${kind}] ceilings, unknown routes, methods, malformed ids`, async () => {
    await withGateway(kind, { env: ENV, options: FAST }, async ({ sandbox, gateway }) => {
      const cookie = await unlock(gateway.url);
      await assertNothingReached(sandbox, async () => {
        const big = { password: PASSWORD, pad: 'x'.repeat(4 * 1024) };
        const res = await admin(gateway.url, '/session', {
          method: 'POST',
          body: big,
          header: null,
        });
        await assertRefusal(res, 413, 'AdminBodyTooLarge');
        assert.equal(res.headers.get('set-cookie'), null);
        const huge = { workspaceId: 'w', name: 'x'.repeat(64 * 1024) };
        await assertRefusal(
          await admin(gateway.url, '/bots', { method: 'POST', cookie, body: huge }),
          413,
          'AdminBodyTooLarge',
        );
        for (const path of ['', '/', '/nope', '/session/x', '/overview/x', '/tenantsx']) {
          await assertRefusal(
            await admin(gateway.url, path, { cookie }),
            404,
            'AdminRouteNotFound',
          );
        }
        const wrong = await admin(gateway.url, '/overview', { method: 'POST', cookie, body: {} });
        assert.equal(wrong.status, 405);
        assert.equal(wrong.headers.get('allow'), 'GET');
        assert.equal(await wrong.text(), '');
        const put = await admin(gateway.url, '/session', { method: 'PUT', cookie });
        assert.equal(put.status, 405);
        assert.equal(put.headers.get('allow'), 'GET, POST, DELETE');
        await put.body?.cancel();
        for (const id of ['', 'a.b', 'x'.repeat(65), 'a%20b', 'a/b']) {
          await assertRefusal(
            await admin(gateway.url, `/workspaces/${id}`, {}),
            404,
            'AdminWorkspaceNotFound',
          );
          await assertRefusal(
            await admin(gateway.url, `/bots/${id}`, { cookie }),
            404,
            'AdminBotNotFound',
          );
        }
      });
    });
  });
}
