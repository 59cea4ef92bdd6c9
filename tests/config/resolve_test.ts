import assert from 'node:assert/strict';
import { resolveConfig } from '../../src/config/resolve.ts';
import { startupLines } from '../../src/config/startup.ts';
import { DEFAULTS } from '../../src/config/defaults.ts';

const facts = { allowlistSize: null, registrySize: null };

Deno.test('options win over environment, environment over defaults', () => {
  const c = resolveConfig({ graphqlMaxBatch: 3 }, {
    GRAPHQL_MAX_BATCH: '7',
    GRAPHQL_MAX_CONCURRENT: '9',
  });
  assert.equal(c.graphqlMaxBatch, 3);
  assert.equal(c.graphqlMaxConcurrent, 9);
  assert.equal(c.restMaxConcurrent, DEFAULTS.restMaxConcurrent);
});

Deno.test('a ceiling that is not a positive number falls back to its default', () => {
  for (const bad of ['0', '-3', 'many', '', 'NaN', 'Infinity']) {
    const c = resolveConfig({}, { WS_MAX_SOCKETS: bad });
    assert.equal(c.wsMaxSockets, DEFAULTS.wsMaxSockets, bad);
  }
  assert.equal(
    resolveConfig({ tenantMaxSockets: -1 }, {}).tenantMaxSockets,
    DEFAULTS.tenantMaxSockets,
  );
});

Deno.test('a token containing whitespace counts as missing', () => {
  assert.equal(resolveConfig({}, { SVC_TOKEN: 'abc def' }).token, null);
  assert.equal(resolveConfig({}, { SVC_TOKEN: ' abc' }).token, null);
  assert.equal(resolveConfig({}, { SVC_TOKEN: 'abc' }).token, 'abc');
  assert.equal(resolveConfig({ tokenEnv: 'MY_TOKEN' }, { MY_TOKEN: 'x1' }).token, 'x1');
  assert.equal(resolveConfig({ token: 'opt' }, { SVC_TOKEN: 'env' }).token, 'opt');
  assert.deepEqual(resolveConfig({}, {}).problems, ['ProxyTokenMissing']);
});

Deno.test('gate states: on, off, misconfigured', () => {
  const both = { CLIENT_BACKEND_URL: 'http://b.example/', CLIENT_BACKEND_ANON_KEY: 'k' };
  assert.equal(resolveConfig({}, both).auth.state, 'on');
  assert.equal(resolveConfig({}, both).auth.url, 'http://b.example');
  assert.equal(resolveConfig({}, {}).auth.state, 'off');
  assert.equal(resolveConfig({ auth: false }, both).auth.state, 'off');
  const one = resolveConfig({ token: 't' }, { CLIENT_BACKEND_URL: 'http://b.example' });
  assert.equal(one.auth.state, 'misconfigured');
  assert.deepEqual(one.problems, ['ProxyAuthMisconfigured']);
});

Deno.test('fence, allowlist and store defaults follow the gate', () => {
  const on = { CLIENT_BACKEND_URL: 'http://b', CLIENT_BACKEND_ANON_KEY: 'k' };
  assert.equal(resolveConfig({}, on).resourceFence, 'bound');
  assert.equal(resolveConfig({}, {}).resourceFence, 'off');
  assert.equal(resolveConfig({}, { ...on, SVC_RESOURCE_FENCE: 'sideways' }).resourceFence, 'bound');
  assert.equal(resolveConfig({}, { SVC_RESOURCE_FENCE: 'strict' }).resourceFence, 'strict');
  assert.equal(resolveConfig({}, on).operationAllowlist, true);
  assert.equal(
    resolveConfig({}, { ...on, SVC_OPERATION_ALLOWLIST: 'off' }).operationAllowlist,
    true,
  );
  assert.equal(
    resolveConfig({}, { ...on, SVC_OPERATION_ALLOWLIST: 'off', SVC_OPERATION_ALLOWLIST_OFF: '1' })
      .operationAllowlist,
    false,
  );
  assert.equal(resolveConfig({}, {}).operationAllowlist, false);
  assert.equal(resolveConfig({}, { SVC_OPERATION_ALLOWLIST: 'on' }).operationAllowlist, true);
  const store = { ...on, BACKEND_SERVICE_ROLE_KEY: 's' };
  assert.equal(resolveConfig({}, store).resourceStore, true);
  assert.equal(resolveConfig({}, { ...store, SVC_RESOURCE_STORE: 'off' }).resourceStore, false);
  assert.equal(resolveConfig({}, { ...store, SVC_RESOURCE_FENCE: 'off' }).resourceStore, false);
});

Deno.test('origins and hosts: lowercased, trimmed, derived hosts, star', () => {
  const c = resolveConfig({}, {
    ALLOWED_ORIGINS: 'https://App.Example.com/, http://other.example:8080',
    PUBLIC_URL: 'https://gw.example.com/',
    ALLOWED_HOSTS: 'api.example.com',
  });
  assert.deepEqual(c.allowedOrigins, ['https://app.example.com', 'http://other.example:8080']);
  assert.deepEqual(c.allowedHosts, [
    'api.example.com',
    'app.example.com',
    'other.example:8080',
    'gw.example.com',
  ]);
  assert.equal(c.publicUrl, 'https://gw.example.com');
  assert.equal(resolveConfig({}, { PUBLIC_URL: 'ftp://x' }).publicUrl, undefined);
  assert.equal(resolveConfig({}, { ALLOWED_HOSTS: '*' }).allowedHosts, null);
  assert.equal(
    resolveConfig({}, {}).allowedHosts,
    null,
    'nothing listed, not loopback: not checked',
  );
  assert.deepEqual(resolveConfig({ loopbackOnly: true }, {}).allowedHosts, []);
});

Deno.test('refusal to serve: open mode off loopback, and star origins without a gate', () => {
  assert.match(resolveConfig({ token: 't' }, {}).refusal ?? '', /open mode/);
  assert.equal(resolveConfig({ token: 't', loopbackOnly: true }, {}).refusal, undefined);
  assert.equal(resolveConfig({ token: 't' }, { SVC_OPEN_PROXY: '1' }).refusal, undefined);
  const star = resolveConfig({ token: 't', loopbackOnly: true }, { ALLOWED_ORIGINS: '*' });
  assert.match(star.refusal ?? '', /ALLOWED_ORIGINS='\*'/);
  const lines = startupLines(star, facts);
  assert.match(lines.at(-1)!, /^REFUSING TO SERVE: /);
  const open = startupLines(resolveConfig({ token: 't' }, { SVC_OPEN_PROXY: '1' }), facts);
  assert.match(open.at(-1)!, /^WARNING: open mode/);
});

Deno.test('startup lines name problems by variable and never print a secret', () => {
  const secrets = {
    SVC_TOKEN: 'tok-secret-1',
    CLIENT_BACKEND_URL: 'http://b.example',
    CLIENT_BACKEND_ANON_KEY: 'anon-secret-2',
    BACKEND_SERVICE_ROLE_KEY: 'service-secret-3',
    ADMIN_PASSWORD: 'short-secret',
    PUBLISHING_SECRET: 'pub-secret-4',
    HTTPS_PROXY: 'http://user:proxy-pass-5@proxy.example:3128',
  };
  const c = resolveConfig({ loopbackOnly: true }, secrets);
  const text = startupLines(c, { allowlistSize: 364, registrySize: 12 }).join('\n');
  for (
    const value of [
      'tok-secret-1',
      'anon-secret-2',
      'service-secret-3',
      'short-secret',
      'pub-secret-4',
      'proxy-pass-5',
      'user:',
    ]
  ) {
    assert.ok(!text.includes(value), `printed ${value}`);
  }
  assert.match(text, /configuration problem ProxyWorkspaceMissing: SVC_WORKSPACE_ID/);
  assert.match(text, /configuration problem ProxyAdminPasswordWeak: ADMIN_PASSWORD/);
  assert.match(text, /outbound proxy http:\/\/\*\*\*:\*\*\*@proxy\.example:3128/);
  assert.match(text, /allowlist 364 fields/);
  assert.match(text, /registry 12 documents/);
  assert.match(startupLines(resolveConfig({}, {}), facts).join('\n'), /allowlist OFF; NO REGISTRY/);
});

Deno.test('media bucket outside the allowed characters is dropped', () => {
  assert.equal(
    resolveConfig({}, { PUBLISHING_MEDIA_BUCKET: 'ok.bucket-1' }).mediaBucket,
    'ok.bucket-1',
  );
  assert.equal(
    resolveConfig({}, { PUBLISHING_MEDIA_BUCKET: 'bad/bucket' }).mediaBucket,
    DEFAULTS.mediaBucket,
  );
});

Deno.test('cost limits: option over environment over default; a bad value gives the default', () => {
  const c = resolveConfig({ graphqlMaxDepth: 5 }, {
    GRAPHQL_MAX_DEPTH: '9',
    GRAPHQL_MAX_ALIASES: '7',
    GRAPHQL_MAX_TOKENS: 'many',
  });
  assert.equal(c.graphqlMaxDepth, 5);
  assert.equal(c.graphqlMaxAliases, 7);
  assert.equal(c.graphqlMaxTokens, DEFAULTS.graphqlMaxTokens);
  assert.equal(c.graphqlMaxRootFields, DEFAULTS.graphqlMaxRootFields);
  assert.equal(c.graphqlMaxDirectives, DEFAULTS.graphqlMaxDirectives);
});

Deno.test('JSON_MAX_DEPTH: option over environment over 128; whole levels, at most 1000', () => {
  assert.equal(resolveConfig({}, {}).jsonMaxDepth, 128);
  assert.equal(DEFAULTS.jsonMaxDepth, 128);
  assert.equal(resolveConfig({}, { JSON_MAX_DEPTH: '64' }).jsonMaxDepth, 64);
  assert.equal(resolveConfig({ jsonMaxDepth: 32 }, { JSON_MAX_DEPTH: '64' }).jsonMaxDepth, 32);
  for (const bad of ['0', '-3', 'deep', ' ']) {
    assert.equal(resolveConfig({}, { JSON_MAX_DEPTH: bad }).jsonMaxDepth, 128, bad);
  }
  assert.equal(resolveConfig({}, { JSON_MAX_DEPTH: '12.7' }).jsonMaxDepth, 12);
  assert.equal(resolveConfig({}, { JSON_MAX_DEPTH: '0.5' }).jsonMaxDepth, 1);
  assert.equal(resolveConfig({}, { JSON_MAX_DEPTH: '1000' }).jsonMaxDepth, 1000);
  assert.equal(resolveConfig({}, { JSON_MAX_DEPTH: '1001' }).jsonMaxDepth, 1000);
  assert.equal(DEFAULTS.jsonDepthHardMax, 1000);
});
