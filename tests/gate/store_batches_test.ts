/**
 * The resource fence's shared store writes and reads in batches of up to 500 ids (SPEC
 * "Resource fence", shared store: "written via svc_resource_bind in 250 ms batches of up to 500
 * ids"; the database functions refuse more), against real PostgreSQL behind the
 * PostgREST-compatible endpoint: 500 named ids are one call, 501 are two, and every row lands;
 * a lookup of 500 unknown ids is one call, of 501 two. The number is written here from the spec.
 */
import assert from 'node:assert/strict';
import { createResourceFence } from '../../src/admission/resource_fence.ts';
import { createResourceStore } from '../../src/admission/resource_store.ts';
import { createBackendRpc } from '../../src/backend/rpc.ts';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { type Backend, startBackend } from '../fixtures/db/backend.ts';
import { type PostgresCluster, startPostgres } from '../fixtures/db/postgres.ts';

const BATCH = 500;

/** `count` distinct 24-hex ids starting with `marker` (4 hex digits). */
const ids = (marker: string, count: number) =>
  Array.from({ length: count }, (_, i) => `${marker}${i.toString(16).padStart(20, '0')}`);

async function withStore(
  cluster: PostgresCluster,
  body: (s: {
    backend: Backend;
    store: ReturnType<typeof createResourceStore>;
    fence: ReturnType<typeof createResourceFence>;
    calls: (fn: string) => number;
  }) => Promise<void>,
) {
  const backend = await startBackend(cluster);
  try {
    const fence = createResourceFence('bound');
    const rpc = createBackendRpc(backend.rest.url, backend.rest.serviceRoleKey, fetch);
    const store = createResourceStore({ rpc, fence });
    try {
      await body({ backend, store, fence, calls: (fn) => backend.rest.calls.get(fn) ?? 0 });
    } finally {
      await store.close();
    }
  } finally {
    await backend.stop();
  }
}

async function rowCount(backend: Backend): Promise<number> {
  const result = await backend.seed.query<{ n: string }>(
    'select count(*) as n from public.svc_resource_owner',
  );
  return Number(result.rows[0].n);
}

Deno.test('the shared store batches 500 ids a call', async (t) => {
  const cluster = await startPostgres();
  try {
    for (const [count, expected] of [[BATCH, 1], [BATCH + 1, 2]]) {
      await t.step(
        `writes: ${count} named ids are ${expected} call(s), every row lands`,
        () =>
          withStore(cluster, async ({ backend, store, fence, calls }) => {
            const named = ids('abcd', count);
            store.learned(WORLD_IDS.bot1, fence.learn(WORLD_IDS.bot1, named, new Set()));
            store.named(named);
            await store.close();
            assert.equal(calls('svc_resource_bind'), expected);
            assert.equal(await rowCount(backend), count);
          }),
      );
      await t.step(
        `reads: ${count} unknown ids are ${expected} lookup(s)`,
        () =>
          withStore(cluster, async ({ store, calls }) => {
            await store.lookup(ids('bcde', count));
            assert.equal(calls('svc_resource_owner_lookup'), expected);
          }),
      );
    }
  } finally {
    await cluster.stop();
  }
});
