/**
 * The panel over the real PostgreSQL (migrations applied, PostgREST-compatible endpoint) on
 * both hosts: tenants, grants and revokes (a revoke ends the account's live socket holding the
 * bot with 4401 and the gate forgets its cached bot set at once), bots recorded and rolled back,
 * and the password throttle shared by two gateway processes (SPEC "Admin panel: /svc/admin",
 * "Authentication" 4, "WebSocket close codes").
 */
import assert from 'node:assert/strict';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { startBackend } from '../fixtures/db/backend.ts';
import { startPostgres } from '../fixtures/db/postgres.ts';
import { assertNothingReached, assertRefusal, postGraphql } from '../helpers/assertions.ts';
import { type Gateway, HOSTS, startGateway } from '../helpers/gateway.ts';
import { BOT_QUERY, startGateOn, withGateOn } from '../gate/helpers.ts';
import { sandboxEnv, withGateway } from '../helpers/setup.ts';
import { admin, json, PASSWORD, unlock } from './helpers.ts';
import type {
  AdminBotAnswer,
  AdminGrantAnswer,
  AdminRevokeAnswer,
  AdminTenants,
} from '../../src/routes/admin/types.ts';

const ENV = { ADMIN_PASSWORD: PASSWORD };
const THROTTLE = { adminThrottle: { pauseMs: 1, freeAttempts: 3, baseWaitMs: 60_000 } };

/** A graphql-transport-ws socket through the gateway, admitted with `jwt`. */
function openSocket(url: string, jwt: string) {
  const ws = new WebSocket(`${url.replace('http', 'ws')}/svc/graphql`, 'graphql-transport-ws');
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.onclose = (e) => resolve({ code: e.code, reason: e.reason });
  });
  const acked = new Promise<boolean>((resolve) => {
    ws.onopen = () =>
      ws.send(JSON.stringify({ type: 'connection_init', payload: { authToken: `Bearer ${jwt}` } }));
    ws.onmessage = (e) => {
      if (JSON.parse(String(e.data)).type === 'connection_ack') resolve(true);
    };
    void closed.then(() => resolve(false));
  });
  return { ws, acked, closed };
}

function wrongPassword(gateway: Gateway, forwardedFor: string) {
  return admin(gateway.url, '/session', {
    method: 'POST',
    header: null,
    body: { password: 'not-the-password-at-all' },
    headers: { 'x-forwarded-for': forwardedFor },
  });
}

const cluster = await startPostgres();

for (const kind of HOSTS) {
  Deno.test(`[${kind}] tenants and grants need the database: 500 ProxyAuthMisconfigured`, async () => {
    await withGateway(kind, { env: ENV, options: THROTTLE }, async ({ gateway }) => {
      const cookie = await unlock(gateway.url);
      await assertRefusal(
        await admin(gateway.url, '/tenants', { cookie }),
        500,
        'ProxyAuthMisconfigured',
      );
      const body = { botId: WORLD_IDS.bot1, userId: '00000000-0000-0000-0000-000000000000' };
      await assertRefusal(
        await admin(gateway.url, '/grants', { method: 'POST', cookie, body }),
        500,
        'ProxyAuthMisconfigured',
      );
      await assertRefusal(
        await admin(gateway.url, `/grants?botId=${WORLD_IDS.bot1}&userId=x`, {
          method: 'DELETE',
          cookie,
        }),
        500,
        'ProxyAuthMisconfigured',
      );
    });
  });

  Deno.test(`[${kind}] tenants; grant and revoke; the revoke closes the live socket 4401`, async () => {
    await withGateOn(
      kind,
      cluster,
      { env: ENV, options: THROTTLE },
      async ({ gateway, users, bearer, backend, sandbox }) => {
        const cookie = await unlock(gateway.url);
        const tenants = await json<AdminTenants>(await admin(gateway.url, '/tenants', { cookie }));
        assert.equal(tenants.truncated, false);
        const byId = new Map(tenants.accounts.map((a) => [a.userId, a]));
        const a = byId.get(users.a.id)!;
        assert.equal(a.email, 'a@example.test');
        assert.equal(a.workspaces[0].role, 'owner');
        assert.deepEqual(a.workspaces[0].bots.map((b) => b.upstreamBotId), [
          WORLD_IDS.bot1,
          WORLD_IDS.bot2,
        ]);
        assert.deepEqual(byId.get(users.c.id)!.workspaces, []);

        // refusals: nothing reaches the upstream, and no grant is written
        await assertNothingReached(sandbox, async () => {
          await assertRefusal(
            await admin(gateway.url, '/grants', {
              method: 'POST',
              cookie,
              body: { botId: WORLD_IDS.bot3 },
            }),
            422,
            'AdminGrantIncomplete',
          );
          await assertRefusal(
            await admin(gateway.url, '/grants', {
              method: 'POST',
              cookie,
              body: { userId: users.c.id },
            }),
            422,
            'AdminGrantIncomplete',
          );
          await assertRefusal(
            await admin(gateway.url, `/grants?botId=${WORLD_IDS.bot3}`, {
              method: 'DELETE',
              cookie,
            }),
            422,
            'AdminGrantIncomplete',
          );
          await assertRefusal(
            await admin(gateway.url, '/grants', {
              method: 'POST',
              cookie,
              body: { botId: 'b000000000000000000000ff', userId: users.c.id },
            }),
            404,
            'AdminBotNotFound',
          );
          await assertRefusal(
            await admin(gateway.url, '/grants', {
              method: 'POST',
              cookie,
              body: { botId: WORLD_IDS.bot3, userId: 'nobody' },
            }),
            404,
            'MemberNotFound',
          );
        });
        const none = await backend.seed.query(
          'select count(*)::int as n from public.svc_bot_grants',
        );
        assert.equal(none.rows[0].n, 0);

        // C has no bot: refused; the grant gives it bot 3
        const before = await postGraphql(gateway.url, {
          query: BOT_QUERY,
          variables: { botID: WORLD_IDS.bot3 },
        }, bearer(users.c.jwt));
        await assertRefusal(before, 403, 'AuthTenantForbidden');
        const granted = await json<AdminGrantAnswer>(
          await admin(gateway.url, '/grants', {
            method: 'POST',
            cookie,
            body: { botId: WORLD_IDS.bot3, userId: users.c.id },
          }),
        );
        assert.equal(granted.granted, true);
        assert.equal(granted.userId, users.c.id);
        const after = await postGraphql(gateway.url, {
          query: BOT_QUERY,
          variables: { botID: WORLD_IDS.bot3 },
        }, bearer(users.c.jwt));
        assert.equal(after.status, 200, await after.clone().text());
        await after.body?.cancel();

        // a live socket of C holding bot 3, and one of B (owner: keeps it)
        const socketC = openSocket(gateway.url, users.c.jwt);
        const socketB = openSocket(gateway.url, users.b.jwt);
        assert.equal(await socketC.acked, true);
        assert.equal(await socketB.acked, true);
        const revoked = await json<AdminRevokeAnswer>(
          await admin(gateway.url, `/grants?botId=${WORLD_IDS.bot3}&userId=${users.c.id}`, {
            method: 'DELETE',
            cookie,
          }),
        );
        assert.deepEqual(revoked, {
          botId: WORLD_IDS.bot3,
          userId: users.c.id,
          revoked: true,
          socketsClosed: 1,
        });
        assert.deepEqual(await socketC.closed, { code: 4401, reason: 'Unauthorized' });
        // the gate forgot C's cached bot set at once (well inside its 30 s cache lifetime)
        const again = await postGraphql(gateway.url, {
          query: BOT_QUERY,
          variables: { botID: WORLD_IDS.bot3 },
        }, bearer(users.c.jwt));
        await assertRefusal(again, 403, 'AuthTenantForbidden');
        assert.equal(socketB.ws.readyState, WebSocket.OPEN, "B's socket is left alone");
        socketB.ws.close(1000);
        await socketB.closed;
        const rows = await backend.seed.query(
          'select count(*)::int as n from public.svc_bot_grants',
        );
        assert.equal(rows.rows[0].n, 0);
      },
    );
  });

  Deno.test(`[${kind}] bots: recorded, granted to a one-workspace account, rolled back on a database failure`, async () => {
    await withGateOn(
      kind,
      cluster,
      { env: ENV, options: THROTTLE },
      async ({ gateway, users, sandbox, backend }) => {
        const cookie = await unlock(gateway.url);
        const created = await json<AdminBotAnswer>(
          await admin(gateway.url, '/bots', {
            method: 'POST',
            cookie,
            body: { workspaceId: WORLD_IDS.workspaceB, name: 'Panel bot' },
          }),
          201,
        );
        assert.equal(created.recorded, true);
        const recorded = await backend.seed.query(
          'select name from public.svc_admin_bots where upstream_bot_id = $1',
          [created.id],
        );
        assert.equal(recorded.rows[0].name, 'Panel bot');
        const granted = await json<AdminGrantAnswer>(
          await admin(gateway.url, '/grants', {
            method: 'POST',
            cookie,
            body: { botId: created.id, userId: users.a.id },
          }),
        );
        const wsA = await backend.seed.query(
          'select workspace_id from public.svc_members where user_id = $1',
          [users.a.id],
        );
        assert.equal(granted.workspaceId, wsA.rows[0].workspace_id);
        await json(
          await admin(gateway.url, `/bots/${created.id}`, {
            method: 'PATCH',
            cookie,
            body: { name: 'Renamed' },
          }),
        );
        const names = await backend.seed.query(
          'select name from public.svc_bots where upstream_bot_id = $1',
          [created.id],
        );
        assert.equal(names.rows[0].name, 'Renamed');

        backend.rest.switches.override = (fn) =>
          fn === 'svc_admin_bot_record' ? new Response('{}', { status: 500 }) : undefined;
        const count = sandbox.world.bots.length;
        await assertRefusal(
          await admin(gateway.url, '/bots', {
            method: 'POST',
            cookie,
            body: { workspaceId: WORLD_IDS.workspaceA, name: 'Doomed' },
          }),
          503,
          'AdminDatabaseUnavailable',
        );
        assert.equal(sandbox.world.bots.length, count, 'the bot was rolled back upstream');
        assert.equal(sandbox.received.at(-1)?.search, '?op=SvcDeleteBot');
        backend.rest.switches.override = null;

        const deleted = await json(
          await admin(gateway.url, `/bots/${created.id}`, { method: 'DELETE', cookie }),
        );
        assert.equal(deleted.deleted, true);
        const gone = await backend.seed.query(
          'select count(*)::int as n from public.svc_bots where upstream_bot_id = $1',
          [created.id],
        );
        assert.equal(gone.rows[0].n, 0);
      },
    );
  });

  Deno.test(`[${kind}] password throttle: two processes share one budget per client`, async () => {
    await withGateOn(kind, cluster, {
      env: { ...ENV, TRUST_FORWARDED_FOR: '1' },
      options: THROTTLE,
    }, async (s) => {
      const second = await startGateOn('node', s.sandbox, s.backend, {
        env: { ...ENV, TRUST_FORWARDED_FOR: 'true' },
        options: THROTTLE,
      });
      try {
        const upstreamBefore = s.sandbox.received.length;
        // three free attempts from client 10.0.0.7 (last hop), spread over both processes
        await assertRefusal(
          await wrongPassword(s.gateway, '203.0.113.1, 10.0.0.7'),
          401,
          'AdminBadPassword',
        );
        await assertRefusal(await wrongPassword(second, '10.0.0.7'), 401, 'AdminBadPassword');
        await assertRefusal(await wrongPassword(s.gateway, '10.0.0.7'), 401, 'AdminBadPassword');
        // the other process has seen one attempt only, yet the shared row makes it wait
        const throttled = await admin(second.url, '/session', {
          method: 'POST',
          header: null,
          body: { password: PASSWORD },
          headers: { 'x-forwarded-for': '10.0.0.7' },
        });
        await assertRefusal(throttled, 429, 'AdminThrottled');
        const retry = Number(throttled.headers.get('retry-after'));
        assert.ok(retry > 0 && retry <= 60, `retry-after ${retry}`);
        assert.equal(throttled.headers.get('set-cookie'), null);
        await assertRefusal(await wrongPassword(s.gateway, '10.0.0.7'), 429, 'AdminThrottled');
        // another client still has its budget, and a right password clears it
        await assertRefusal(await wrongPassword(second, '10.0.0.8'), 401, 'AdminBadPassword');
        const res = await admin(second.url, '/session', {
          method: 'POST',
          header: null,
          body: { password: PASSWORD },
          headers: { 'x-forwarded-for': '10.0.0.8' },
        });
        await json(res);
        assert.equal(s.sandbox.received.length, upstreamBefore, 'unlocking never asks upstream');
        const rows = await s.backend.seed.query(
          'select client_key, failures from public.svc_admin_throttle',
        );
        assert.deepEqual(rows.rows, [{ client_key: '10.0.0.7', failures: 3 }]);
        const log = [...s.gateway.lines, ...second.lines].join('\n');
        assert.ok(!log.includes(PASSWORD) && !log.includes('not-the-password-at-all'));
      } finally {
        await second.stop();
      }
    });
  });
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] password throttle, session gate not on: the service-role key shares the count`, async () => {
    // CLIENT_BACKEND_ANON_KEY unset: no session gate (proxied routes fail closed), but the
    // backend URL and service-role key exist, so the throttle's row is shared (SPEC
    // "Authentication" 4)
    const backend = await startBackend(cluster);
    const env = {
      ...ENV,
      TRUST_FORWARDED_FOR: '1',
      CLIENT_BACKEND_URL: backend.rest.url,
      BACKEND_SERVICE_ROLE_KEY: backend.rest.serviceRoleKey,
    };
    try {
      await withGateway(kind, { env, options: THROTTLE }, async ({ sandbox, gateway }) => {
        const second = await startGateway('deno', THROTTLE, sandboxEnv(sandbox, env));
        try {
          await assertNothingReached(sandbox, async () => {
            for (
              const [at, hops] of [[gateway, '10.0.0.9'], [second, '10.0.0.9'], [
                gateway,
                '10.0.0.9',
              ]] as const
            ) {
              await assertRefusal(await wrongPassword(at, hops), 401, 'AdminBadPassword');
            }
            // the second process counted one attempt itself; the shared row makes it wait
            const throttled = await admin(second.url, '/session', {
              method: 'POST',
              header: null,
              body: { password: PASSWORD },
              headers: { 'x-forwarded-for': '10.0.0.9' },
            });
            await assertRefusal(throttled, 429, 'AdminThrottled');
            assert.equal(throttled.headers.get('set-cookie'), null);
          });
          const rows = await backend.seed.query(
            'select client_key, failures from public.svc_admin_throttle',
          );
          assert.deepEqual(rows.rows, [{ client_key: '10.0.0.9', failures: 3 }]);
          assert.equal(backend.rest.calls.get('svc_admin_tenants') ?? 0, 0);
        } finally {
          await second.stop();
        }
      });
    } finally {
      await backend.stop();
    }
  });
}

Deno.test('[deno] password throttle without a database: per process, keyed by the peer address', async () => {
  await withGateway(
    'deno',
    { env: { ...ENV, TRUST_FORWARDED_FOR: '0' }, options: THROTTLE },
    async ({ gateway }) => {
      for (let i = 0; i < 3; i += 1) {
        await assertRefusal(await wrongPassword(gateway, `10.0.0.${i}`), 401, 'AdminBadPassword');
      }
      // x-forwarded-for is not trusted: the peer (127.0.0.1) spent its free attempts
      const res = await wrongPassword(gateway, '10.0.0.99');
      await assertRefusal(res, 429, 'AdminThrottled');
      assert.ok(Number(res.headers.get('retry-after')) >= 1);
    },
  );
});

Deno.test({
  name: 'stop the cluster',
  fn: () => cluster.stop(),
  sanitizeOps: false,
  sanitizeResources: false,
});
