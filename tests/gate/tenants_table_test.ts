/**
 * The tenant table and the session token's fast refusal as pure units with a clock held still
 * (SPEC "Ceilings" tenant rows; "Authentication" 2): tenant keys, the minute's burst and its
 * refill, the no-bot share, live sockets, idle entries dropped after five minutes and the
 * 10,000-tenant ceiling; the unverified exp and iss reading.
 */
import assert from 'node:assert/strict';
import { SignJWT } from 'jose';
import { readSessionToken } from '../../src/admission/session_token.ts';
import {
  createTenants,
  deploymentTenantKey,
  NO_BOT_TENANT,
  tenantKeyOf,
  type TenantLimits,
} from '../../src/admission/tenants.ts';
import { resolveConfig } from '../../src/config/resolve.ts';

const LIMITS: TenantLimits = {
  requestsPerMinute: 600,
  maxSockets: 8,
  tracked: 10_000,
  idleMs: 5 * 60_000,
  noBotShare: 0.1,
};

Deno.test('a tenant is named by its sorted bot set; no fence, no tenant', () => {
  assert.equal(tenantKeyOf(new Set(['b', 'a'])), tenantKeyOf(new Set(['a', 'b'])));
  assert.notEqual(tenantKeyOf(new Set(['a'])), tenantKeyOf(new Set(['a', 'b'])));
  assert.equal(tenantKeyOf(new Set()), NO_BOT_TENANT);
  assert.equal(deploymentTenantKey(resolveConfig({ allowedBotIds: 'any' })), null);
  assert.equal(
    deploymentTenantKey(resolveConfig({ allowedBotIds: ['x', 'y'] })),
    tenantKeyOf(new Set(['y', 'x'])),
  );
  assert.equal(typeof deploymentTenantKey(resolveConfig({})), 'string');
});

Deno.test("a minute's burst, refilled continuously; the no-bot bucket gets a tenth", () => {
  let now = 0;
  const tenants = createTenants(LIMITS, () => now);
  let taken = 0;
  while (tenants.takeRequest('t')) taken++;
  assert.equal(taken, 600);
  now += 100; // 600 a minute: one back every 100 ms
  assert.equal(tenants.takeRequest('t'), true);
  assert.equal(tenants.takeRequest('t'), false);
  taken = 0;
  while (tenants.takeRequest(NO_BOT_TENANT)) taken++;
  assert.equal(taken, 60);
});

Deno.test('live sockets per tenant: 8, and 1 for the no-bot bucket; release is idempotent', () => {
  const tenants = createTenants(LIMITS, () => 0);
  const releases = Array.from({ length: 8 }, () => tenants.openSocket('t'));
  assert.ok(releases.every((r) => r !== null));
  assert.equal(tenants.openSocket('t'), null);
  releases[0]!();
  releases[0]!();
  assert.notEqual(tenants.openSocket('t'), null);
  assert.equal(tenants.openSocket('t'), null, 'a double release gave back one slot only');
  assert.notEqual(tenants.openSocket(NO_BOT_TENANT), null);
  assert.equal(tenants.openSocket(NO_BOT_TENANT), null);
});

Deno.test('idle tenants are dropped after five minutes; past 10,000 the oldest goes', () => {
  let now = 0;
  const tenants = createTenants({ ...LIMITS, tracked: 3 }, () => now);
  tenants.takeRequest('idle');
  tenants.openSocket('holding');
  now += 5 * 60_000;
  tenants.takeRequest('new');
  assert.equal(tenants.size, 2, 'the idle one is gone, the one holding a socket stays');
  for (let i = 0; i < 599; i++) tenants.takeRequest('new');
  assert.equal(tenants.takeRequest('new'), false);
  tenants.takeRequest('x');
  tenants.takeRequest('y');
  assert.equal(tenants.size, 3);
  assert.equal(tenants.takeRequest('new'), true, 'dropped as the oldest: a fresh bucket');
});

Deno.test('the session token is read without the network: bearer, exp, iss', async () => {
  const key = new TextEncoder().encode('k');
  const issuer = 'http://b.example/auth/v1';
  const sign = (claims: Record<string, unknown>) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(key);
  const now = 1_000_000_000_000;
  const good = await sign({ iss: issuer, exp: now / 1000 + 60 });
  const read = readSessionToken(`bearer ${good}`, issuer, now);
  assert.ok('hash' in read);
  assert.equal(read.expiresAt, now + 60_000);
  assert.match(read.hash, /^[0-9a-f]{64}$/);
  const code = (auth: string | null) => {
    const r = readSessionToken(auth, issuer, now);
    return 'code' in r ? r.code : 'admitted';
  };
  assert.equal(code(null), 'AuthSessionRequired');
  assert.equal(code(good), 'AuthSessionRequired', 'no Bearer scheme');
  assert.equal(
    code(`Bearer ${await sign({ iss: issuer, exp: now / 1000 })}`),
    'AuthSessionRequired',
  );
  assert.equal(
    code(`Bearer ${await sign({ iss: 'x', exp: now / 1000 + 60 })}`),
    'AuthSessionRequired',
  );
  assert.equal(code(`Bearer ${await sign({ iss: issuer })}`), 'AuthSessionRequired');
  assert.equal(code('Bearer a.b.c'), 'AuthSessionRequired');
});
