/**
 * The admin session module on its own: cookie signing and verification under the deployment's
 * key, the x-svc-admin header rule and the Secure rule (SPEC "Admin panel: /svc/admin",
 * "Authentication" 4). The HTTP side runs on both hosts in tests/admin/session_test.ts.
 */
import assert from 'node:assert/strict';
import { SignJWT } from 'jose';
import { resolveConfig } from '../../src/config/resolve.ts';
import {
  adminCookieValues,
  clearCookieHeader,
  setCookieHeader,
  signAdminCookie,
  signingKey,
  verifyAdminCookie,
} from '../../src/routes/admin/cookie.ts';
import { checkAdminSession, readAdminSession } from '../../src/routes/admin/session_check.ts';

const PASSWORD = 'correct horse battery staple';
const config = resolveConfig({ adminPassword: PASSWORD, token: 'tok-1' }, {});
const secrets = { password: PASSWORD, cookieSalt: config.admin.cookieSalt };

function request(cookie?: string, header: string | null = '1', url = 'http://127.0.0.1:8000/x') {
  const headers = new Headers();
  if (cookie !== undefined) headers.set('cookie', cookie);
  if (header !== null) headers.set('x-svc-admin', header);
  return new Request(url, { headers });
}

Deno.test('a cookie signed under this deployment verifies, with the header', async () => {
  const { value, expiresAt } = await signAdminCookie(secrets);
  assert.ok(expiresAt > Date.now() + 2 * 3600_000 - 2_000);
  assert.equal(await checkAdminSession(config, request(`a=b; svc_admin=${value}`)), null);
  const read = await readAdminSession(config, request(`svc_admin=${value}`));
  assert.deepEqual(read, { expiresAt });
});

Deno.test('refusals: no header, empty header, no cookie, forged, tampered, expired', async () => {
  const { value } = await signAdminCookie(secrets);
  const expect401 = async (req: Request) =>
    assert.equal((await checkAdminSession(config, req))?.code, 'AdminSessionRequired');
  await expect401(request(`svc_admin=${value}`, null));
  await expect401(request(`svc_admin=${value}`, '  '));
  await expect401(request(undefined));
  await expect401(request('other=1'));
  const [head, body, sig] = value.split('.');
  const flipped = sig[0] === 'A' ? `B${sig.slice(1)}` : `A${sig.slice(1)}`;
  await expect401(request(`svc_admin=${head}.${body}.${flipped}`));
  const claims = JSON.parse(atob(body.replace(/-/g, '+').replace(/_/g, '/')));
  const later = btoa(JSON.stringify({ ...claims, exp: claims.exp + 3600 }))
    .replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  await expect401(request(`svc_admin=${head}.${later}.${sig}`));
  // forged: right shape, signed with a guessed key; and an unsigned (alg none) token
  const forged = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setAudience('svc-admin')
    .setIssuedAt().setExpirationTime('2h').sign(new TextEncoder().encode(PASSWORD));
  await expect401(request(`svc_admin=${forged}`));
  const none = `${btoa('{"alg":"none"}').replace(/=+$/, '')}.${body}.`;
  await expect401(request(`svc_admin=${none}`));
  const old = await signAdminCookie(secrets, Date.now() - 3 * 3600_000);
  await expect401(request(`svc_admin=${old.value}`));
  assert.equal(await verifyAdminCookie(secrets, old.value), null);
});

Deno.test('another password, salt, token or backend gives another key', async () => {
  const { value } = await signAdminCookie(secrets);
  const others = [
    resolveConfig({ adminPassword: `${PASSWORD}!`, token: 'tok-1' }, {}),
    resolveConfig({ adminPassword: PASSWORD, token: 'tok-1', adminCookieSalt: 'other-salt' }, {}),
    resolveConfig({ adminPassword: PASSWORD, token: 'tok-2' }, {}),
    resolveConfig({ adminPassword: PASSWORD, token: 'tok-1' }, {
      CLIENT_BACKEND_URL: 'http://backend.invalid',
      CLIENT_BACKEND_ANON_KEY: 'anon',
    }),
  ];
  for (const other of others) {
    assert.notEqual(other.admin.cookieSalt + other.admin.password, secrets.cookieSalt + PASSWORD);
    const refused = await checkAdminSession(other, request(`svc_admin=${value}`));
    assert.equal(refused?.code, 'AdminSessionRequired');
  }
  assert.notDeepEqual(
    await signingKey(secrets),
    await signingKey({ ...secrets, cookieSalt: 'x' }),
  );
});

Deno.test('panel off: 401; weak password: 500 AdminMisconfigured', async () => {
  const { value } = await signAdminCookie(secrets);
  const off = resolveConfig({ token: 'tok-1' }, {});
  assert.equal(
    (await checkAdminSession(off, request(`svc_admin=${value}`)))?.code,
    'AdminSessionRequired',
  );
  const weak = resolveConfig({ token: 'tok-1', adminPassword: 'short' }, {});
  assert.equal(
    (await checkAdminSession(weak, request(`svc_admin=${value}`)))?.code,
    'AdminMisconfigured',
  );
});

Deno.test('Set-Cookie attributes: Secure except on plain-http loopback', () => {
  const plain = setCookieHeader(request(), 'v', 7_200_000);
  assert.equal(plain, 'svc_admin=v; Max-Age=7200; Path=/; HttpOnly; SameSite=Strict');
  const tls = setCookieHeader(request(undefined, '1', 'https://127.0.0.1/x'), 'v', 7_200_000);
  assert.match(tls, /; Secure$/);
  const remote = new Request('http://10.0.0.5:8000/x', { headers: { host: 'panel.example' } });
  assert.match(setCookieHeader(remote, 'v', 1000), /; Secure$/);
  assert.match(
    clearCookieHeader(remote),
    /^svc_admin=; Max-Age=0; .*HttpOnly; SameSite=Strict; Secure$/,
  );
  assert.deepEqual(adminCookieValues('a=1; svc_admin=x; svc_admin="y"'), ['x', 'y']);
});

Deno.test('configuration: home workspace fallback and the throttle option', () => {
  const home = (env: Record<string, string>, workspaceId?: string) =>
    resolveConfig({ adminPassword: PASSWORD, workspaceId }, env).admin.homeWorkspaceId;
  assert.equal(home({ SVC_WORKSPACE_ID: 'w1', CLIENT_SVC_WORKSPACE_ID: 'w2' }), 'w1');
  assert.equal(home({ CLIENT_SVC_WORKSPACE_ID: 'w2' }), 'w2');
  assert.equal(home({ CLIENT_SVC_WORKSPACE_ID: 'w2' }, 'w0'), 'w0');
  assert.equal(home({}), undefined);
  assert.deepEqual(config.admin.throttle, {
    freeAttempts: 5,
    baseWaitMs: 30_000,
    capMs: 900_000,
    pauseMs: 500,
  });
  const tuned = resolveConfig({
    adminPassword: PASSWORD,
    adminThrottle: { freeAttempts: 2.7, pauseMs: 1, baseWaitMs: -1, capMs: Number.NaN },
  }, {}).admin.throttle;
  assert.deepEqual(tuned, { freeAttempts: 2, baseWaitMs: 30_000, capMs: 900_000, pauseMs: 1 });
});
