/**
 * The resource fence's shared store (SPEC "Resource fence", shared store), against real
 * PostgreSQL behind the PostgREST-compatible endpoint: at the store itself with a clock held
 * still (reads, the unknown minute, batched writes only for named ids, the 6-hour rewrite, the
 * 5-second pause of an unresponsive store), and two gateway processes on one database that
 * must agree on ownership.
 */
import assert from 'node:assert/strict';
import { createResourceFence } from '../../src/admission/resource_fence.ts';
import { createResourceStore } from '../../src/admission/resource_store.ts';
import { createBackendRpc } from '../../src/backend/rpc.ts';
import { startSandbox, WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { type Backend, startBackend } from '../fixtures/db/backend.ts';
import { type PostgresCluster, startPostgres } from '../fixtures/db/postgres.ts';
import { assertNothingReached, assertRefusal, postGraphql } from '../helpers/assertions.ts';
import type { Gateway } from '../helpers/gateway.ts';
import { FLOW_QUERY, GROUPS_QUERY, seedAccounts, startGateOn, statusOf } from './helpers.ts';

const R1 = 'aaaaaaaaaaaaaaaaaaaaaaa1';
const R2 = 'aaaaaaaaaaaaaaaaaaaaaaa2';
const R3 = 'aaaaaaaaaaaaaaaaaaaaaaa3';
const HOUR = 60 * 60_000;

/** A store over a fresh fence and the backend's service role, with a clock the test moves. */
function storeFor(backend: Backend) {
  const clock = { now: Date.now() };
  const fence = createResourceFence('bound');
  const rpc = createBackendRpc(backend.rest.url, backend.rest.serviceRoleKey, fetch);
  const store = createResourceStore({ rpc, fence, now: () => clock.now });
  const calls = (fn: string) => backend.rest.calls.get(fn) ?? 0;
  return { clock, fence, store, calls };
}

async function rows(backend: Backend) {
  const result = await backend.seed.query<{ resource_id: string; bot_id: string; shared: boolean }>(
    'select resource_id, bot_id, shared from public.svc_resource_owner order by resource_id',
  );
  return result.rows;
}

async function withBackend(cluster: PostgresCluster, body: (b: Backend) => Promise<void>) {
  const backend = await startBackend(cluster);
  try {
    await body(backend);
  } finally {
    await backend.stop();
  }
}

Deno.test('the shared store', async (t) => {
  const cluster = await startPostgres();
  try {
    await t.step('reads: a known id is remembered, an unknown one for a minute', async () => {
      await withBackend(cluster, async (backend) => {
        const bound = await backend.rpc(
          'svc_resource_bind',
          {
            p_bindings: [{ resource_id: R1, bot_id: WORLD_IDS.bot1 }],
          },
          backend.rest.serviceRoleKey,
          backend.rest.serviceRoleKey,
        );
        assert.equal(bound.status, 200);
        const { clock, fence, store, calls } = storeFor(backend);
        await store.lookup([R1, R2]);
        assert.equal(calls('svc_resource_owner_lookup'), 1);
        assert.deepEqual(fence.get(R1), { bot: WORLD_IDS.bot1, shared: false });
        assert.equal(fence.get(R2), undefined);
        const foreign = fence.check([{ id: R1, argument: 'flowID' }], new Set([WORLD_IDS.bot3]));
        assert.equal(foreign?.code, 'ResourceNotAllowed');
        await store.lookup([R1, R2]);
        assert.equal(calls('svc_resource_owner_lookup'), 1, 'known in memory, unknown remembered');
        clock.now += 60_000;
        await store.lookup([R2]);
        assert.equal(calls('svc_resource_owner_lookup'), 2, 'asked again after a minute');
        await Promise.all([store.lookup([R3]), store.lookup([R3]), store.lookup([R3])]);
        assert.equal(calls('svc_resource_owner_lookup'), 3, 'concurrent askers share one call');
        await store.close();
      });
    });

    await t.step(
      'writes: only named ids, one batch, again after 6 hours or when shared',
      async () => {
        await withBackend(cluster, async (backend) => {
          const { clock, fence, store, calls } = storeFor(backend);
          const learned = fence.learn(WORLD_IDS.bot1, [R1, R2, R3], new Set());
          store.learned(WORLD_IDS.bot1, learned);
          store.named([R1, R2]);
          await store.close();
          assert.equal(calls('svc_resource_bind'), 1, 'one batch');
          assert.deepEqual(await rows(backend), [
            { resource_id: R1, bot_id: WORLD_IDS.bot1, shared: false },
            { resource_id: R2, bot_id: WORLD_IDS.bot1, shared: false },
          ], 'R3 was learned but never named: not written');
          store.named([R1]);
          await store.close();
          assert.equal(calls('svc_resource_bind'), 1, 'written less than 6 hours ago');
          await backend.seed.query(
            "update public.svc_resource_owner set bound_at = now() - interval '7 hours'",
          );
          clock.now += 6 * HOUR;
          store.named([R1]);
          await store.close();
          assert.equal(calls('svc_resource_bind'), 2, 'rewritten after 6 hours');
          const fresh = await backend.seed.query<{ resource_id: string }>(
            "select resource_id from public.svc_resource_owner where bound_at > now() - interval '1 hour'",
          );
          assert.deepEqual(fresh.rows.map((r) => r.resource_id), [R1], 'the row was refreshed');
          store.learned(WORLD_IDS.bot2, fence.learn(WORLD_IDS.bot2, [R2], new Set()));
          store.named([R2]);
          await store.close();
          assert.equal(calls('svc_resource_bind'), 3, 'a second bot learned: written again');
          assert.equal((await rows(backend)).find((r) => r.resource_id === R2)?.shared, true);
        });
      },
    );

    await t.step('an unresponsive store is left alone 5 s; memory decides meanwhile', async () => {
      await withBackend(cluster, async (backend) => {
        const { clock, fence, store, calls } = storeFor(backend);
        backend.rest.switches.fail500 = true;
        await store.lookup([R1]);
        assert.equal(calls('svc_resource_owner_lookup'), 1);
        store.learned(WORLD_IDS.bot1, fence.learn(WORLD_IDS.bot1, [R2], new Set()));
        store.named([R2]);
        await store.lookup([R3]);
        await store.close();
        assert.equal(calls('svc_resource_owner_lookup'), 1, 'no read while left alone');
        assert.equal(calls('svc_resource_bind'), 0, 'no write while left alone');
        backend.rest.switches.fail500 = false;
        backend.rest.switches.delayMs = 2_500; // past the 2 s deadline
        clock.now += 5_000;
        await store.lookup([R1]);
        assert.equal(calls('svc_resource_owner_lookup'), 2);
        await store.lookup([R3]);
        assert.equal(calls('svc_resource_owner_lookup'), 2, 'a deadline passed: left alone again');
        backend.rest.switches.delayMs = 0;
        clock.now += 5_000;
        store.named([R2]);
        await store.close();
        assert.deepEqual(await rows(backend), [
          { resource_id: R2, bot_id: WORLD_IDS.bot1, shared: false },
        ]);
      });
    });
  } finally {
    await cluster.stop();
  }
});

Deno.test('two gateway processes on one database agree on ownership', async () => {
  const cluster = await startPostgres();
  const backend = await startBackend(cluster);
  const sandbox = await startSandbox();
  const gateways: Gateway[] = [];
  try {
    const users = await seedAccounts(backend);
    const bearer = (jwt: string) => ({ authorization: `Bearer ${jwt}` });
    // One in this process (Deno host), one in a Node child process.
    gateways.push(await startGateOn('deno', sandbox, backend));
    gateways.push(await startGateOn('node', sandbox, backend));
    const [first, second] = gateways;
    const learn = await postGraphql(
      first.url,
      { query: GROUPS_QUERY, variables: { botID: WORLD_IDS.bot1 } },
      bearer(users.a.jwt),
    );
    const groups = (await learn.json()).data.bot.flowGroups.map((g: { id: string }) => g.id);
    const secondProcessFirst = await postGraphql(second.url, {
      query: FLOW_QUERY,
      variables: { botID: WORLD_IDS.bot3, flowID: groups[1] },
    }, bearer(users.b.jwt));
    assert.equal(
      await statusOf(secondProcessFirst),
      200,
      'learned but never named in the first process: not in the store yet (bound forwards)',
    );
    const named = await postGraphql(first.url, {
      query: FLOW_QUERY,
      variables: { botID: WORLD_IDS.bot1, flowID: groups[0] },
    }, bearer(users.a.jwt));
    assert.equal(await statusOf(named), 200);
    await sandbox.waitFor(() => (backend.rest.calls.get('svc_resource_bind') ?? 0) > 0, 'a bind');
    await waitForRow(backend, groups[0]);
    await assertNothingReached(sandbox, async () => {
      const message = await assertRefusal(
        await postGraphql(second.url, {
          query: FLOW_QUERY,
          variables: { botID: WORLD_IDS.bot3, flowID: groups[0] },
        }, bearer(users.b.jwt)),
        403,
        'ResourceNotAllowed',
      );
      assert.equal(message, 'The flowID in this request belongs to another workspace');
    });
    const owner = await postGraphql(second.url, {
      query: FLOW_QUERY,
      variables: { botID: WORLD_IDS.bot1, flowID: groups[0] },
    }, bearer(users.a.jwt));
    assert.equal(await statusOf(owner), 200, 'the owner passes in the other process');

    // The requests above queue writes that land up to 250 ms later and would refresh the row
    // after the ageing below: let every queued write land first.
    await waitForQuietBinds(backend);
    await backend.seed.query(
      "update public.svc_resource_owner set bound_at = now() - interval '25 hours'",
    );
    const third = await startGateOn('deno', sandbox, backend);
    gateways.push(third);
    const aged = await postGraphql(third.url, {
      query: FLOW_QUERY,
      variables: { botID: WORLD_IDS.bot3, flowID: groups[0] },
    }, bearer(users.b.jwt));
    assert.equal(await statusOf(aged), 200, 'a row older than a day is invisible');
  } finally {
    for (const g of gateways) await g.stop();
    await sandbox.close();
    await backend.stop();
    await cluster.stop();
  }
});

/** Waits until no svc_resource_bind call has arrived for 1 s (the batch delay is 250 ms). */
async function waitForQuietBinds(backend: Backend): Promise<void> {
  const count = () => backend.rest.calls.get('svc_resource_bind') ?? 0;
  let seen = count();
  let quietSince = Date.now();
  while (Date.now() - quietSince < 1000) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    if (count() !== seen) [seen, quietSince] = [count(), Date.now()];
  }
}

/** Polls the table until `id` has a row (the batch is written 250 ms after it is queued). */
async function waitForRow(backend: Backend, id: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await rows(backend)).some((r) => r.resource_id === id)) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no row for ${id}`);
}
