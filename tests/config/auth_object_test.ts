/**
 * The `auth` option given as an object (SPEC "Options": "object forces the gate on";
 * docs/configuration.md): with a backend URL and anon key, from the object or the environment,
 * the gate is on with no environment at all; an object without them resolves to misconfigured,
 * which fails closed (every proxied request 500 ProxyAuthMisconfigured, health 503), on both
 * hosts. Nothing reaches the upstream.
 */
import assert from 'node:assert/strict';
import { resolveConfig } from '../../src/config/resolve.ts';
import { assertNothingReached, assertRefusal } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';

/** A backend nothing listens on: a gate that is on refuses a missing bearer before asking it. */
const BACKEND = 'http://127.0.0.1:9';

Deno.test('auth object: its url and anonKey turn the gate on, the environment fills the rest', () => {
  const on = resolveConfig({ token: 't', auth: { url: BACKEND, anonKey: 'k' } }, {});
  assert.equal(on.auth.state, 'on');
  assert.equal(on.auth.url, BACKEND);
  assert.deepEqual(on.problems, []);
  const mixed = resolveConfig({ token: 't', auth: { anonKey: 'k' } }, {
    CLIENT_BACKEND_URL: BACKEND,
  });
  assert.equal(mixed.auth.state, 'on');
  assert.equal(mixed.auth.url, BACKEND);
  for (const auth of [{}, { url: BACKEND }, { anonKey: 'k' }, { cacheTtlMs: 1000 }]) {
    const c = resolveConfig({ token: 't', auth }, {});
    assert.equal(c.auth.state, 'misconfigured', JSON.stringify(auth));
    assert.deepEqual(c.problems, ['ProxyAuthMisconfigured'], JSON.stringify(auth));
  }
});

for (const kind of HOSTS) {
  Deno.test(`[${kind}] auth: { url, anonKey } with no backend variables: the gate is on`, async () => {
    await withGateway(kind, { options: { auth: { url: BACKEND, anonKey: 'k' } } }, async (s) => {
      assert.ok(s.gateway.lines.some((l) => /gate on/.test(l)), s.gateway.lines.join('\n'));
      assert.equal((await fetch(`${s.gateway.url}/svc/healthz`)).status, 200);
      await assertNothingReached(s.sandbox, async () => {
        const res = await fetch(`${s.gateway.url}/svc/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: '{ currentUser { id } }' }),
        });
        await assertRefusal(res, 401, 'AuthSessionRequired');
      });
    });
  });

  Deno.test(`[${kind}] auth: {} with no backend variables: misconfigured, closed`, async () => {
    await withGateway(kind, { options: { auth: {} } }, async (s) => {
      const health = await fetch(`${s.gateway.url}/svc/healthz`);
      assert.equal(health.status, 503);
      await health.body?.cancel();
      await assertNothingReached(s.sandbox, async () => {
        const res = await fetch(`${s.gateway.url}/svc/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: '{ currentUser { id } }' }),
        });
        await assertRefusal(res, 500, 'ProxyAuthMisconfigured');
      });
    });
  });
}
