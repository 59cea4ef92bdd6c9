/**
 * svc_my_bot_ids() through the PostgREST-compatible endpoint, as the session gate calls it
 * (SPEC "Authentication" 2): owners and admins open every bot of their workspace with an
 * upstream id, members only the bots granted to them; the unauthenticated are refused 401.
 */
import assert from 'node:assert/strict';
import { type Backend, startBackend } from '../fixtures/db/backend.ts';
import { type PostgresCluster, startPostgres } from '../fixtures/db/postgres.ts';

const BOT_A1 = 'a1a1a1a1a1a1a1a1a1a1a1a1';
const BOT_A2 = 'a2a2a2a2a2a2a2a2a2a2a2a2';
const BOT_B1 = 'b1b1b1b1b1b1b1b1b1b1b1b1';

/** Workspace A: bots A1, A2 and one not yet upstream; workspace B: bot B1. */
async function twoWorkspaces(backend: Backend) {
  const { seed } = backend;
  const ownerA = await seed.createUser('owner-a@example.test');
  const ownerB = await seed.createUser('owner-b@example.test');
  const wsA = await seed.createWorkspace('A', ownerA);
  const wsB = await seed.createWorkspace('B', ownerB);
  const botA1 = await seed.createBot(wsA, 'A1', BOT_A1);
  const botA2 = await seed.createBot(wsA, 'A2', BOT_A2);
  const pendingA = await seed.createBot(wsA, 'A pending');
  const botB1 = await seed.createBot(wsB, 'B1', BOT_B1);
  return { ownerA, ownerB, wsA, wsB, botA1, botA2, pendingA, botB1 };
}

async function botIdsOf(backend: Backend, userId: string): Promise<unknown> {
  const token = await backend.rest.mintUserToken(userId);
  const answer = await backend.rpc('svc_my_bot_ids', {}, token);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  assert.ok(Array.isArray(answer.body));
  return [...answer.body].sort();
}

async function withBackend(cluster: PostgresCluster, fn: (b: Backend) => Promise<void>) {
  const backend = await startBackend(cluster);
  try {
    await fn(backend);
  } finally {
    await backend.stop();
  }
}

Deno.test('svc_my_bot_ids', async (t) => {
  const cluster = await startPostgres();
  try {
    await t.step('owner: every bot of the workspace with an upstream id', async () => {
      await withBackend(cluster, async (backend) => {
        const w = await twoWorkspaces(backend);
        assert.deepEqual(await botIdsOf(backend, w.ownerA), [BOT_A1, BOT_A2]);
        assert.deepEqual(await botIdsOf(backend, w.ownerB), [BOT_B1]);
      });
    });

    await t.step('admin: every bot, grants or not', async () => {
      await withBackend(cluster, async (backend) => {
        const w = await twoWorkspaces(backend);
        const admin = await backend.seed.createUser('admin@example.test');
        await backend.seed.addMember(w.wsA, admin, 'admin');
        assert.deepEqual(await botIdsOf(backend, admin), [BOT_A1, BOT_A2]);
      });
    });

    await t.step('member: nothing without grants, exactly the granted bots with', async () => {
      await withBackend(cluster, async (backend) => {
        const w = await twoWorkspaces(backend);
        const member = await backend.seed.createUser('member@example.test');
        await backend.seed.addMember(w.wsA, member, 'member');
        assert.deepEqual(await botIdsOf(backend, member), []);
        await backend.seed.grantBot(w.botA2, member);
        await backend.seed.grantBot(w.pendingA, member); // no upstream id yet: not listed
        assert.deepEqual(await botIdsOf(backend, member), [BOT_A2]);
      });
    });

    await t.step('a grant outside the member’s workspaces opens nothing', async () => {
      await withBackend(cluster, async (backend) => {
        const w = await twoWorkspaces(backend);
        const member = await backend.seed.createUser('member@example.test');
        await backend.seed.addMember(w.wsA, member, 'member');
        await backend.seed.grantBot(w.botB1, member);
        assert.deepEqual(await botIdsOf(backend, member), []);
      });
    });

    await t.step('several workspaces: the union, each by its own role', async () => {
      await withBackend(cluster, async (backend) => {
        const w = await twoWorkspaces(backend);
        await backend.seed.addMember(w.wsB, w.ownerA, 'member');
        assert.deepEqual(await botIdsOf(backend, w.ownerA), [BOT_A1, BOT_A2]);
        await backend.seed.grantBot(w.botB1, w.ownerA);
        assert.deepEqual(await botIdsOf(backend, w.ownerA), [BOT_A1, BOT_A2, BOT_B1]);
      });
    });

    await t.step('a user in no workspace: an empty array', async () => {
      await withBackend(cluster, async (backend) => {
        await twoWorkspaces(backend);
        const loner = await backend.seed.createUser('loner@example.test');
        assert.deepEqual(await botIdsOf(backend, loner), []);
      });
    });

    await t.step('no subject: 401 PT401, hint unauthenticated', async () => {
      await withBackend(cluster, async (backend) => {
        await twoWorkspaces(backend);
        const noSub = await backend.rpc('svc_my_bot_ids', {}, backend.rest.serviceRoleKey);
        assert.equal(noSub.status, 401);
        assert.deepEqual(noSub.body, {
          code: 'PT401',
          details: null,
          hint: 'unauthenticated',
          message: 'Sign in to use this deployment',
        });
        const notUuid = await backend.rest.mintUserToken('not-a-uuid');
        const badSub = await backend.rpc('svc_my_bot_ids', {}, notUuid);
        assert.equal(badSub.status, 401);
        assert.equal((badSub.body as { hint: string }).hint, 'unauthenticated');
      });
    });

    await t.step('anon (no session): 401, permission denied', async () => {
      await withBackend(cluster, async (backend) => {
        const anon = await backend.rpc('svc_my_bot_ids', {}, backend.rest.anonKey);
        assert.equal(anon.status, 401);
        assert.equal((anon.body as { code: string }).code, '42501');
        const noBearer = await backend.rpc('svc_my_bot_ids', {});
        assert.equal(noBearer.status, 401);
      });
    });

    await t.step('expired or foreign tokens never reach the function', async () => {
      await withBackend(cluster, async (backend) => {
        const w = await twoWorkspaces(backend);
        const expired = await backend.rest.mintUserToken(w.ownerA, { expSeconds: -120 });
        const late = await backend.rpc('svc_my_bot_ids', {}, expired);
        assert.equal(late.status, 401);
        assert.equal((late.body as { code: string }).code, 'PGRST303');
        const other = await startBackend(cluster);
        try {
          const foreign = await other.rest.mintUserToken(w.ownerA);
          const refused = await backend.rpc('svc_my_bot_ids', {}, foreign);
          assert.equal(refused.status, 401);
          assert.equal((refused.body as { code: string }).code, 'PGRST301');
        } finally {
          await other.stop();
        }
      });
    });
  } finally {
    await cluster.stop();
  }
});
