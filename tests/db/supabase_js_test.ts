/**
 * The calls the gateway makes, made exactly as it makes them: `@supabase/supabase-js`
 * `createClient(url, anonKey, {global: {headers: {Authorization: 'Bearer ' + userJwt}}, auth:
 * {persistSession: false, autoRefreshToken: false}})`.rpc('svc_my_bot_ids') as the signed-in
 * caller, and the resource store as the service role, against the PostgREST-compatible fixture
 * under Deno.
 */
import assert from 'node:assert/strict';
import { createClient } from '@supabase/supabase-js';
import { type Backend, startBackend } from '../fixtures/db/backend.ts';
import { type PostgresCluster, startPostgres } from '../fixtures/db/postgres.ts';

const BOT = 'c0ffeec0ffeec0ffeec0ffee';
const RESOURCE = 'feedfacefeedfacefeedface';

/** A client as the gate builds one: anon key as apikey, the user's JWT as Authorization. */
function asCaller(b: Backend, userJwt: string) {
  return createClient(b.rest.url, b.rest.anonKey, {
    global: { headers: { Authorization: `Bearer ${userJwt}` } },
    auth: { persistSession: false, autoRefreshToken: false },
  });
}

/** A client as the service role (key as both apikey and bearer). */
function asServiceRole(b: Backend) {
  return createClient(b.rest.url, b.rest.serviceRoleKey, {
    auth: { persistSession: false, autoRefreshToken: false },
  });
}

async function withBackend(cluster: PostgresCluster, fn: (b: Backend) => Promise<void>) {
  const backend = await startBackend(cluster);
  try {
    await fn(backend);
  } finally {
    await backend.stop();
  }
}

Deno.test('@supabase/supabase-js against the fixture', async (t) => {
  const cluster = await startPostgres();
  try {
    await t.step('rpc svc_my_bot_ids as the signed-in caller answers the bot set', async () => {
      await withBackend(cluster, async (b) => {
        const user = await b.seed.createUser('owner@example.test');
        const ws = await b.seed.createWorkspace('W', user);
        await b.seed.createBot(ws, 'Bot', BOT);
        const { data, error, status } = await asCaller(b, await b.rest.mintUserToken(user))
          .rpc('svc_my_bot_ids');
        assert.equal(error, null);
        assert.equal(status, 200);
        assert.deepEqual(data, [BOT]);
        assert.equal(b.rest.calls.get('svc_my_bot_ids'), 1);
      });
    });

    await t.step(
      'database refusals arrive as {code, details, hint, message} and a status',
      async () => {
        await withBackend(cluster, async (b) => {
          const user = await b.seed.createUser('late@example.test');
          const expired = await b.rest.mintUserToken(user, { expSeconds: -120 });
          const late = await asCaller(b, expired).rpc('svc_my_bot_ids');
          assert.equal(late.status, 401);
          assert.equal(late.data, null);
          assert.equal(late.error?.code, 'PGRST303');
          const noSub = await asServiceRole(b).rpc('svc_my_bot_ids');
          assert.equal(noSub.status, 401);
          assert.equal(noSub.error?.code, 'PT401');
          assert.equal(noSub.error?.hint, 'unauthenticated');
          const anonOnly = createClient(b.rest.url, b.rest.anonKey, {
            auth: { persistSession: false, autoRefreshToken: false },
          });
          const anon = await anonOnly.rpc('svc_my_bot_ids');
          assert.equal(anon.status, 401);
          assert.equal(anon.error?.code, '42501');
        });
      },
    );

    await t.step('the resource store as the service role; a user is refused 403', async () => {
      await withBackend(cluster, async (b) => {
        const service = asServiceRole(b);
        const bound = await service.rpc('svc_resource_bind', {
          p_bindings: [{ resource_id: RESOURCE, bot_id: BOT }],
        });
        assert.equal(bound.error, null);
        assert.equal(bound.data, 1);
        const found = await service.rpc('svc_resource_owner_lookup', { p_ids: [RESOURCE] });
        assert.deepEqual(found.data, [{ resource_id: RESOURCE, bot_id: BOT, shared: false }]);
        const user = await b.seed.createUser('user@example.test');
        const asUser = await asCaller(b, await b.rest.mintUserToken(user))
          .rpc('svc_resource_owner_lookup', { p_ids: [RESOURCE] });
        assert.equal(asUser.status, 403);
        assert.equal(asUser.error?.code, '42501');
      });
    });

    await t.step('an unreachable backend is status 0 with an error, never a throw', async () => {
      await withBackend(cluster, async (b) => {
        const user = await b.seed.createUser('down@example.test');
        const client = asCaller(b, await b.rest.mintUserToken(user));
        await b.rest.switches.setUnreachable(true);
        const down = await client.rpc('svc_my_bot_ids');
        assert.equal(down.status, 0);
        assert.equal(down.data, null);
        assert.match(down.error?.message ?? '', /fetch failed/);
        await b.rest.switches.setUnreachable(false);
        const back = await client.rpc('svc_my_bot_ids');
        assert.equal(back.status, 200);
        assert.deepEqual(back.data, []);
      });
    });

    await t.step('a caller abort signal cuts a slow call short', async () => {
      await withBackend(cluster, async (b) => {
        const user = await b.seed.createUser('slow@example.test');
        b.rest.switches.delayMs = 60_000;
        const gaveUp = new AbortController();
        const call = asCaller(b, await b.rest.mintUserToken(user))
          .rpc('svc_my_bot_ids').abortSignal(gaveUp.signal);
        const answer = Promise.resolve(call);
        while (!b.rest.calls.get('svc_my_bot_ids')) await new Promise((r) => setTimeout(r, 5));
        gaveUp.abort();
        const { status, error } = await answer;
        assert.equal(status, 0);
        assert.match(error?.message ?? '', /AbortError/);
      });
    });
  } finally {
    await cluster.stop();
  }
});
