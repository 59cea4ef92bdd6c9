/**
 * The shared socket counts of one process (src/shared_limits/sockets.ts) when its sync and one
 * of its opens are at the backend together. The backend here keeps svc_socket_leases as the SQL
 * does (svc_socket_open writes the process's count as p_local + 1; svc_limits_sync replaces the
 * process's rows with the counts it was sent), and lets the test choose the order in which the
 * database runs the two calls. Whatever the order (both are run), the row must end at what the
 * process holds, or the other processes see one socket fewer and admit one over the tenant's
 * ceiling. The last case is a sync sent before the open, which the database could run after it
 * (its counts would miss the open): no open is sent while a sync is at the backend. (An open the backend refuses after the sync ran first leaves the row one over until
 * the next sync: the safe side, other processes refuse one more meanwhile; not tested here.)
 */
import assert from 'node:assert/strict';
import type { LimitsBackend } from '../../src/backend/limits_rpc.ts';
import { createLink } from '../../src/shared_limits/link.ts';
import { createSharedSockets } from '../../src/shared_limits/sockets.ts';
import { startSync } from '../../src/shared_limits/sync.ts';

/** What svc_limits_sync does to the process's rows: replaced by the counts it was sent. */
function replaceRows(rows: Map<string, number>, sockets: Record<string, number>): void {
  rows.clear();
  for (const [tenant, n] of Object.entries(sockets)) if (n > 0) rows.set(tenant, n);
}

/** Process 'p''s socket counts over `backend` (ceiling 10), told of its sync by `syncing`. */
function processSockets(backend: LimitsBackend, syncing: () => Promise<unknown> | null) {
  const link = createLink({ log: () => {}, logEveryMs: 60_000 });
  const sockets = createSharedSockets({
    backend,
    link,
    process: 'p',
    max: () => 10,
    leaseMs: 5_000,
    syncing,
  });
  return { link, sockets };
}

function setup() {
  /** svc_socket_leases of process 'p', tenant -> sockets. */
  const rows = new Map<string, number>();
  const answer = Promise.withResolvers<void>();
  const atBackend = Promise.withResolvers<void>();
  const backend: LimitsBackend = {
    take: () => Promise.resolve(null),
    async openSocket(_process, tenant, local, max) {
      atBackend.resolve();
      await answer.promise;
      if (local >= max) return false;
      rows.set(tenant, local + 1);
      return true;
    },
    sync(_process, sockets) {
      replaceRows(rows, sockets);
      return Promise.resolve({ cursor: 0, revocations: [] });
    },
  };
  const { sockets } = processSockets(backend, () => null);
  return { backend, sockets, rows, answer, atBackend: atBackend.promise };
}

for (const order of ['the open first', 'the sync first'] as const) {
  Deno.test(`a sync sent while an open was at the backend, ${order}: the row holds it`, async () => {
    const s = setup();
    const opening = s.sockets.open('t');
    await s.atBackend;
    // the sync is sent now (its counts read while the open is at the backend) ...
    const counts = s.sockets.counts();
    // ... and the database runs the two calls in `order`
    if (order === 'the sync first') await s.backend.sync('p', counts, 5_000, 0);
    s.answer.resolve();
    const release = await opening;
    assert.ok(release);
    if (order === 'the open first') await s.backend.sync('p', counts, 5_000, 0);
    assert.equal(s.rows.get('t') ?? 0, 1, 'the row says what the process holds');
    assert.deepEqual(s.sockets.counts(), { t: 1 });
    release();
    assert.deepEqual(s.sockets.counts(), {});
  });
}

Deno.test('an open asked for while a sync is at the backend is sent after its answer', async () => {
  /** svc_socket_leases of process 'p', tenant -> sockets, as the database runs the calls. */
  const rows = new Map<string, number>();
  /** The syncs at the backend: their counts (as sent) and how to answer them. */
  const held: { counts: Record<string, number>; answer: () => void }[] = [];
  const opens: number[] = [];
  const backend: LimitsBackend = {
    take: () => Promise.resolve(null),
    openSocket(_process, tenant, local) {
      // the database runs an open at once: before any sync still held
      opens.push(local);
      rows.set(tenant, local + 1);
      return Promise.resolve(true);
    },
    sync(_process, sockets) {
      const answer = Promise.withResolvers<{ cursor: number; revocations: [] }>();
      held.push({ counts: sockets, answer: () => answer.resolve({ cursor: 0, revocations: [] }) });
      return answer.promise;
    },
  };
  let sync: { inFlight(): Promise<void> | null } | null = null;
  const { link, sockets } = processSockets(backend, () => sync?.inFlight() ?? null);
  const running = startSync({
    backend,
    link,
    process: 'p',
    counts: sockets.counts,
    apply: () => {},
    log: () => {},
    intervalMs: 60_000,
    leaseMs: 5_000,
  });
  sync = running;
  try {
    assert.equal(held.length, 1, 'the first sync is at the backend, its counts read: none');
    const opening = sockets.open('t');
    for (let turn = 0; turn < 5; turn++) await new Promise((r) => setTimeout(r, 0));
    assert.deepEqual(opens, [], 'no open was sent while the sync was at the backend');
    // the database runs the sync now, with the counts it was sent, and answers it
    replaceRows(rows, held[0].counts);
    held[0].answer();
    const release = await opening;
    assert.ok(release);
    assert.deepEqual(opens, [0]);
    assert.equal(rows.get('t'), 1, 'the row says what the process holds');
    assert.deepEqual(sockets.counts(), { t: 1 });
    release();
  } finally {
    const closing = running.close();
    // close() gives the counts back with one last sync
    for (let turn = 0; turn < 5 && held.length < 2; turn++) {
      await new Promise((r) => setTimeout(r, 0));
    }
    for (const h of held) h.answer();
    await closing;
  }
});
