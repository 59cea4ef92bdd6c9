/**
 * Which tenant limits are in force (docs/operations.md "Limits across processes"), as the startup
 * line says: shared with the backend URL and the service-role key, per-process without the key or
 * with SVC_SHARED_LIMITS=off.
 */
import assert from 'node:assert/strict';
import { resolveConfig } from '../../src/config/resolve.ts';
import { configurationLine } from '../../src/config/startup.ts';

const BACKEND = {
  SVC_TOKEN: 'token-0123456789',
  CLIENT_BACKEND_URL: 'http://127.0.0.1:9',
  CLIENT_BACKEND_ANON_KEY: 'anon',
};
const FACTS = { allowlistSize: null, registrySize: null };

Deno.test('the startup line names the mode of the tenant limits', () => {
  const cases: [Record<string, string>, boolean][] = [
    [BACKEND, false],
    [{ ...BACKEND, BACKEND_SERVICE_ROLE_KEY: 'service' }, true],
    [{ ...BACKEND, BACKEND_SERVICE_ROLE_KEY: 'service', SVC_SHARED_LIMITS: 'OFF' }, false],
    [{ SVC_TOKEN: 'token-0123456789', BACKEND_SERVICE_ROLE_KEY: 'service' }, false],
  ];
  for (const [env, shared] of cases) {
    const config = resolveConfig({}, env);
    assert.equal(config.sharedLimits, shared, JSON.stringify(env));
    const line = configurationLine(config, FACTS);
    assert.ok(
      line.includes(shared ? 'tenant limits shared (backend)' : 'tenant limits per-process'),
      line,
    );
    assert.ok(!line.includes('service'), 'no key is printed');
  }
});
