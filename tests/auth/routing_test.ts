/**
 * The /svc/auth routes' routing on both hosts, on the real PostgreSQL with the
 * PostgREST-compatible fixture and the sandbox upstream: other methods 405 with their allow
 * header, unknown paths 404, ALLOWED_ORIGINS on the preflight and the answers, SVC_WORKSPACE_ID
 * empty, not mounted without the service-role key or with the gate off; nothing reaches the
 * upstream, and no secret is in any answer. Provision and bots themselves: provision_test.ts.
 */
import assert from 'node:assert/strict';
import { assertNothingReached } from '../helpers/assertions.ts';
import { assertCode, type AuthSetup, type AuthStep, authStepsOnEachHost } from './helpers.ts';

/** Sub-steps on one user, with nothing upstream; the other gateways start beside the suite's. */
async function methodsAndMounting(s: AuthSetup, t: Deno.TestContext) {
  const user = await s.signUp('methods@example.test');
  await assertNothingReached(s.sandbox, async () => {
    await t.step('other methods: 405 with allow and no body', async () => {
      for (
        const [method, path, allow] of [
          ['GET', '/provision', 'POST'],
          ['DELETE', '/bots', 'POST'],
          ['PUT', '/bots/abc', 'PATCH, DELETE'],
          ['GET', '/recovery-link', 'POST'],
        ]
      ) {
        const reply = await s.api(method, path, user);
        assert.equal(reply.status, 405, `${method} ${path}`);
        assert.equal(reply.headers.get('allow'), allow);
        assert.equal(reply.text, '');
      }
    });
    await t.step('an unknown path: 404 NotFound', async () => {
      assertCode(await s.api('POST', '/nothing', user), 404, 'NotFound');
    });
    await t.step(
      'ALLOWED_ORIGINS: the preflight, an allowed origin, ProxyOriginForbidden',
      async () => {
        const origin = 'https://site.example.test';
        const cors = await s.otherGateway({ ALLOWED_ORIGINS: origin });
        const preflight = await s.api('OPTIONS', '/bots/x', null, undefined, cors, {
          origin,
          'access-control-request-method': 'PATCH',
        });
        assert.equal(preflight.status, 204);
        assert.equal(preflight.headers.get('access-control-allow-origin'), origin);
        const listed = await s.api('POST', '/bots', user, {}, cors, { origin });
        assertCode(listed, 422, 'BadBotName');
        assert.equal(listed.headers.get('access-control-allow-origin'), origin);
        const stranger = await s.api('POST', '/bots', user, {}, cors, {
          origin: 'https://evil.example.test',
        });
        assertCode(stranger, 403, 'ProxyOriginForbidden');
      },
    );
    await t.step('SVC_WORKSPACE_ID empty: ProxyAuthMisconfigured on every route', async () => {
      const noWs = await s.otherGateway({ SVC_WORKSPACE_ID: '' });
      for (
        const [method, path] of [['POST', '/provision'], ['POST', '/bots'], [
          'PATCH',
          '/bots/x',
        ], ['DELETE', '/bots/x']]
      ) {
        const reply = await s.api(
          method,
          path,
          user,
          method === 'DELETE' ? undefined : { name: 'n' },
          noWs,
        );
        assert.match(assertCode(reply, 500, 'ProxyAuthMisconfigured'), /SVC_WORKSPACE_ID/);
      }
    });
    await t.step('not mounted without the service-role key, nor with the gate off', async () => {
      const noKey = await s.otherGateway({ BACKEND_SERVICE_ROLE_KEY: '' });
      for (const path of ['/provision', '/bots', '/recovery-link']) {
        const unmounted = await s.api('POST', path, user, { email: 'a@b.c' }, noKey);
        assert.equal(unmounted.status, 404, `${path} is not mounted without the key`);
      }
      const gateOff = await s.otherGateway({
        CLIENT_BACKEND_URL: '',
        CLIENT_BACKEND_ANON_KEY: '',
      });
      assert.equal((await s.api('POST', '/provision', user, undefined, gateOff)).status, 404);
    });
  });
}

function noSecret(s: AuthSetup) {
  s.assertNoSecretInAnswers();
}

/** The steps in order, on one database, sandbox and gateway per host. */
const STEPS: AuthStep[] = [
  ['methods, unknown paths, mounting and SVC_WORKSPACE_ID', methodsAndMounting],
  ['no token, key or link appears in any answer', noSecret],
];

authStepsOnEachHost('auth routing', STEPS);
