/**
 * The sync keeps going when applying the feed throws (src/shared_limits/sync.ts): the throw is
 * logged once, the cursor still advances (the same rows are not applied again and again), and
 * nothing becomes an unhandled rejection (which would end the process; Deno's test runner fails
 * the test on one). A stand-in backend: the order of the feed's answers is what is under test.
 */
import assert from 'node:assert/strict';
import type { LimitsBackend, SyncAnswer } from '../../src/backend/limits_rpc.ts';
import { createLink } from '../../src/shared_limits/link.ts';
import { startSync } from '../../src/shared_limits/sync.ts';
import { eventually } from './helpers.ts';

Deno.test('sync: a throwing apply is logged, the cursor advances, the sync goes on', async () => {
  const cursors: (number | null)[] = [];
  const answers: SyncAnswer[] = [
    { cursor: 5, revocations: [] },
    { cursor: 7, revocations: [{ userId: null, botId: 'b1' }] },
  ];
  const backend: LimitsBackend = {
    take: () => Promise.resolve(null),
    openSocket: () => Promise.resolve(null),
    sync(_process, _sockets, _leaseMs, after) {
      cursors.push(after);
      return Promise.resolve(answers.shift() ?? { cursor: after ?? 0, revocations: [] });
    },
  };
  const lines: string[] = [];
  let applied = 0;
  const sync = startSync({
    backend,
    link: createLink({ log: () => {}, logEveryMs: 60_000 }),
    process: 'p1',
    counts: () => ({}),
    apply: () => {
      applied++;
      throw new Error('a close failed');
    },
    log: (line) => lines.push(line),
    intervalMs: 10,
    leaseMs: 5_000,
  });
  try {
    await eventually(() => cursors.length >= 4, 5_000);
  } finally {
    await sync.close();
  }
  assert.deepEqual(cursors.slice(0, 4), [null, 5, 7, 7], 'the cursor advanced past the rows');
  assert.equal(applied, 1, 'the rows were applied once');
  assert.equal(lines.length, 1);
  assert.match(lines[0], /applying revocations failed/);
});
