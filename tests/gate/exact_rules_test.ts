/**
 * Rules of the gate-on path that a plausible edit would loosen while every other test passes,
 * against real PostgreSQL behind the PostgREST-compatible endpoint (one cluster for the file):
 *
 * - the bot-set cache holds an answer exactly 30 s (SPEC "Authentication" 2, "cached 30 s"; the
 *   default read through the resolved configuration, the gate's clock held still), so a revoked
 *   account keeps access no longer;
 * - a cached answer never outlives the session token's exp: a token that expires while cached
 *   is 401 AuthSessionRequired, with no backend call;
 * - the token's issuer must equal <CLIENT_BACKEND_URL>/auth/v1 ("Authentication" 2): a prefix of
 *   it, or more after it, is 401 with no backend call;
 * - a request that names a resource and no bot still runs steps 18 and 20 ("Order in which a
 *   GraphQL body is checked"): an id bound to another account's bot is 403 ResourceNotAllowed,
 *   to an account with other bots and to one with none, on both hosts.
 */
import assert from 'node:assert/strict';
import { createGateOn } from '../../src/admission/gate_on.ts';
import { createBackendRpc } from '../../src/backend/rpc.ts';
import { resolveConfig } from '../../src/config/resolve.ts';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { type Backend, startBackend } from '../fixtures/db/backend.ts';
import { type PostgresCluster, startPostgres } from '../fixtures/db/postgres.ts';
import { assertNothingReached, assertRefusal, postGraphql } from '../helpers/assertions.ts';
import { type HostKind, HOSTS } from '../helpers/gateway.ts';
import { gateEnv, GROUPS_QUERY, seedAccounts, statusOf, withGateOn } from './helpers.ts';

/** The spec's bot-set cache lifetime, written here (SPEC "Authentication" 2). */
const SPEC_CACHE_MS = 30_000;

/** A gate over `backend` with the default configuration and a clock the test moves. */
function gateWithClock(backend: Backend) {
  const config = resolveConfig({}, gateEnv(backend, false));
  const clock = { now: Date.now() };
  const rpc = createBackendRpc(config.auth.url!, config.auth.anonKey!, fetch);
  const gate = createGateOn(config, { rpc, now: () => clock.now });
  const calls = () => backend.rest.calls.get('svc_my_bot_ids') ?? 0;
  return { config, clock, gate, calls };
}

async function cacheLifetime(cluster: PostgresCluster) {
  const backend = await startBackend(cluster);
  try {
    const users = await seedAccounts(backend);
    const { config, clock, gate, calls } = gateWithClock(backend);
    assert.equal(config.auth.cacheTtlMs, SPEC_CACHE_MS, 'the resolved default');
    const bearer = `Bearer ${users.a.jwt}`;
    const first = await gate.admit(bearer);
    assert.ok('session' in first, JSON.stringify(first));
    assert.equal(calls(), 1);
    clock.now += SPEC_CACHE_MS - 1;
    assert.ok('session' in await gate.admit(bearer));
    assert.equal(calls(), 1, 'a hit up to 30 s after the answer');
    clock.now += 1;
    assert.ok('session' in await gate.admit(bearer));
    assert.equal(calls(), 2, 'asked again at 30 s');
  } finally {
    await backend.stop();
  }
}

async function cacheUntilExp(cluster: PostgresCluster) {
  const backend = await startBackend(cluster);
  try {
    const users = await seedAccounts(backend);
    const { clock, gate, calls } = gateWithClock(backend);
    // exp 10 s from now: well inside the cache's 30 s
    const jwt = await backend.rest.mintUserToken(users.a.id, { expSeconds: 10 });
    const bearer = `Bearer ${jwt}`;
    const first = await gate.admit(bearer);
    assert.ok('session' in first, JSON.stringify(first));
    const exp = first.session.expiresAt!;
    assert.equal(typeof exp, 'number');
    assert.ok(exp - clock.now < SPEC_CACHE_MS, 'the token expires while cached');
    clock.now = exp - 1;
    assert.ok('session' in await gate.admit(bearer), 'cached until its exp');
    assert.equal(calls(), 1);
    clock.now = exp;
    const late = await gate.admit(bearer);
    assert.ok('refused' in late, 'refused at its exp');
    assert.equal(late.refused.code, 'AuthSessionRequired');
    assert.equal(calls(), 1, 'with no backend call');
  } finally {
    await backend.stop();
  }
}

/** The issuer must equal <CLIENT_BACKEND_URL>/auth/v1: a prefix of it or more after it is 401. */
async function issuerExactly(cluster: PostgresCluster) {
  const backend = await startBackend(cluster);
  try {
    const users = await seedAccounts(backend);
    const { gate, calls } = gateWithClock(backend);
    const right = `${backend.rest.url}/auth/v1`;
    for (
      const issuer of [`${backend.rest.url}/auth`, `${right}/x`, `${right}x`, backend.rest.url]
    ) {
      const jwt = await backend.rest.mintUserToken(users.a.id, { issuer });
      const verdict = await gate.admit(`Bearer ${jwt}`);
      assert.ok('refused' in verdict, `issuer ${issuer} was admitted`);
      assert.equal(verdict.refused.code, 'AuthSessionRequired');
    }
    assert.equal(calls(), 0, 'refused with no backend call');
    const jwt = await backend.rest.mintUserToken(users.a.id, { issuer: right });
    assert.ok('session' in await gate.admit(`Bearer ${jwt}`), 'the right issuer is admitted');
  } finally {
    await backend.stop();
  }
}

async function resourceWithoutBot(cluster: PostgresCluster, kind: HostKind) {
  await withGateOn(
    kind,
    cluster,
    {},
    async ({ sandbox, gateway, users, bearer }) => {
      // user B's answer binds bot 3's flow group ids
      const learn = await postGraphql(
        gateway.url,
        { query: GROUPS_QUERY, variables: { botID: WORLD_IDS.bot3 } },
        bearer(users.b.jwt),
      );
      const text = await learn.text();
      assert.equal(learn.status, 200, text);
      const groups = JSON.parse(text).data.bot.flowGroups.map((g: { id: string }) => g.id);
      assert.ok(groups.length > 0);
      const query = `{ file(id: "${groups[0]}") { id } }`;
      await assertNothingReached(sandbox, async () => {
        const message = await assertRefusal(
          await postGraphql(gateway.url, { query }, bearer(users.a.jwt)),
          403,
          'ResourceNotAllowed',
        );
        assert.equal(message, 'The id in this request belongs to another workspace');
        // an account with no bot owns no resource either
        await assertRefusal(
          await postGraphql(gateway.url, { query }, bearer(users.c.jwt)),
          403,
          'ResourceNotAllowed',
        );
      });
      // the owner's account may name it, and an unknown id passes (bound mode)
      const own = await postGraphql(gateway.url, { query }, bearer(users.b.jwt));
      assert.equal(await statusOf(own), 200);
      const unknown = await postGraphql(
        gateway.url,
        { query: `{ file(id: "${'c'.repeat(24)}") { id } }` },
        bearer(users.a.jwt),
      );
      assert.equal(await statusOf(unknown), 200);
    },
  );
}

Deno.test('gate on: exact rules of the cache and the fences', async (t) => {
  const cluster = await startPostgres();
  try {
    await t.step(
      'an answer is used for 30 s and asked again at 30 s',
      () => cacheLifetime(cluster),
    );
    await t.step(
      'an answer never outlives the token exp (401, no backend call)',
      () => cacheUntilExp(cluster),
    );
    await t.step(
      "the issuer must equal the backend project's (401, no backend call)",
      () => issuerExactly(cluster),
    );
    for (const kind of HOSTS) {
      await t.step(
        `[${kind}] a resource named with no bot is fenced: another account's id is 403`,
        () => resourceWithoutBot(cluster, kind),
      );
    }
  } finally {
    await cluster.stop();
  }
});
