/**
 * The memory accountant and the budget's resolution (src/memory/, docs/operations.md "Memory"),
 * in process: the thresholds and their actions, who is shed first, resident memory as the
 * second signal (with the collector), the count back at zero once every holder is gone; and
 * MEMORY_BUDGET_BYTES over a share of the cgroup limit (v2, v1, unlimited) over the default,
 * the cgroup files read through the path seam.
 */
import assert from 'node:assert/strict';
import { MemoryAccountant } from '../../src/memory/accountant.ts';
import { readCgroupLimit, resolveMemoryBudget } from '../../src/config/memory_budget.ts';
import { RequestState } from '../../src/http/request_state.ts';
import { DEFAULTS } from '../../src/config/defaults.ts';
import { resolveConfig } from '../../src/config/resolve.ts';
import { configurationLine } from '../../src/config/startup.ts';

const MIB = 1024 * 1024;
/** Long enough for a fresh reading and a collection after the last. */
const LATER = Math.max(DEFAULTS.memoryRssSampleMs, DEFAULTS.memoryCollectEveryMs);

/** A fake socket: records its shed, says whether it is stuck. */
function socket(stuck = false) {
  const s = { shed: 0, stuck, account: null as ReturnType<MemoryAccountant['open']> | null };
  return {
    s,
    sheddable: {
      shed: () => {
        s.shed++;
        s.account?.close();
      },
      stalled: () => s.stuck,
    },
  };
}

Deno.test('thresholds: pressure refuses sockets, the budget refuses requests and sheds the largest', () => {
  const memory = new MemoryAccountant(100 * MIB, null);
  assert.equal(memory.pressureBytes, 75 * MIB);
  const [a, b, c] = [socket(), socket(), socket()];
  a.s.account = memory.open(a.sheddable);
  b.s.account = memory.open(b.sheddable);
  c.s.account = memory.open(c.sheddable);
  a.s.account.set(30 * MIB);
  b.s.account.set(40 * MIB);
  assert.equal(memory.level, 'normal');
  assert.equal(memory.refuseSocket(), false);
  c.s.account.set(10 * MIB); // 80: past the pressure threshold
  assert.equal(memory.level, 'pressure');
  assert.equal(memory.pressed, true);
  assert.equal(memory.refuseSocket(), true);
  assert.equal(memory.refuseRequest(), false, 'requests are refused only past the budget');
  memory.charge(25 * MIB); // 105: past the budget; the largest (b, 40) is shed at once
  assert.deepEqual([a.s.shed, b.s.shed, c.s.shed], [0, 1, 0]);
  assert.equal(memory.held, 65 * MIB);
  assert.equal(memory.level, 'normal');
  assert.deepEqual(memory.actions, {
    pressure: 1,
    collect: 0,
    refused_socket: 1,
    refused_request: 0,
    shed_socket: 1,
  });
  memory.release(25 * MIB);
  a.s.account.close();
  c.s.account.close();
  c.s.account.set(5 * MIB); // a closed account counts nothing more
  assert.equal(memory.held, 0, 'the count returns to zero once the holders are gone');
  assert.equal(memory.sockets, 0);
});

Deno.test('a stuck socket is shed before a larger one that is moving; none holding nothing', () => {
  const memory = new MemoryAccountant(100 * MIB, null);
  const moving = socket(false);
  const stuck = socket(true);
  const idle = socket(true);
  moving.s.account = memory.open(moving.sheddable);
  stuck.s.account = memory.open(stuck.sheddable);
  idle.s.account = memory.open(idle.sheddable);
  moving.s.account.set(60 * MIB);
  stuck.s.account.set(30 * MIB);
  memory.charge(20 * MIB);
  assert.deepEqual([moving.s.shed, stuck.s.shed, idle.s.shed], [0, 1, 0]);
  memory.charge(30 * MIB); // 110 again: only the moving one holds anything now
  assert.equal(moving.s.shed, 1);
  assert.equal(memory.refuseRequest(), false);
  memory.release(50 * MIB);
  idle.s.account.close();
  assert.equal(memory.held, 0);
});

Deno.test('past the budget with nothing to shed, requests are refused until it is back', () => {
  const memory = new MemoryAccountant(100 * MIB, null);
  memory.charge(120 * MIB);
  assert.equal(memory.level, 'over');
  assert.equal(memory.refuseRequest(), true);
  memory.release(120 * MIB);
  assert.equal(memory.refuseRequest(), false);
  assert.equal(memory.actions.refused_request, 1);
});

Deno.test('resident memory: pressure past the threshold after a collection, stuck sockets shed past the budget', () => {
  let rss = 50 * MIB;
  let now = 0;
  let collections = 0;
  const memory = new MemoryAccountant(100 * MIB, () => rss, {
    now: () => now,
    collect: () => {
      collections++;
      rss -= 10 * MIB; // the collector gives back some garbage
    },
  });
  const stuck = socket(true);
  const moving = socket(false);
  stuck.s.account = memory.open(stuck.sheddable);
  moving.s.account = memory.open(moving.sheddable);
  stuck.s.account.set(5 * MIB);
  moving.s.account.set(50 * MIB);
  rss = 50 * MIB + 90 * MIB; // growth 90 > 75
  now += DEFAULTS.memoryRssSampleMs;
  memory.sample();
  assert.equal(collections, 1, 'a collection before the reading is judged');
  assert.equal(memory.residentGrowth, 80 * MIB);
  assert.equal(memory.pressed, true, 'resident memory alone is pressure');
  assert.equal(memory.refuseRequest(), false, '... not a refusal of requests');
  rss = 50 * MIB + 130 * MIB; // growth 120 after the collection: past the budget
  now += LATER;
  memory.sample();
  assert.equal(stuck.s.shed, 1, 'the stuck socket is shed');
  assert.equal(moving.s.shed, 0, 'a moving one never is, by resident memory');
  rss = 60 * MIB;
  now += LATER;
  memory.sample();
  assert.equal(memory.level, 'normal');
  moving.s.account.close();
  memory.stop();
  assert.equal(memory.held, 0);
});

Deno.test('a request is charged what it reads and holds, and released once answered', () => {
  const memory = new MemoryAccountant(100 * MIB, null);
  new RequestState(null).charge(5); // untracked (the budget off): nothing
  assert.equal(memory.held, 0);
  const request = new RequestState(memory);
  request.charge(2 * MIB);
  request.charge(3 * MIB);
  request.charge(-1 * MIB);
  assert.equal(memory.held, 4 * MIB);
  request.release();
  request.release();
  assert.equal(memory.held, 0);
});

/** A cgroup tree in a temporary directory: `files` relative to its root. */
function cgroupTree(files: Record<string, string>): string {
  const root = Deno.makeTempDirSync();
  for (const [path, text] of Object.entries(files)) {
    Deno.mkdirSync(`${root}/${path}`.replace(/\/[^/]+$/, ''), { recursive: true });
    Deno.writeTextFileSync(`${root}/${path}`, text);
  }
  return root;
}

Deno.test('the budget: MEMORY_BUDGET_BYTES, else half the cgroup v2 or v1 limit, else the default', () => {
  const v2 = cgroupTree({ 'memory.max': '1073741824\n' });
  const v1 = cgroupTree({ 'memory/memory.limit_in_bytes': '536870912\n' });
  const unlimitedV2 = cgroupTree({ 'memory.max': 'max\n' });
  const unlimitedV1 = cgroupTree({ 'memory/memory.limit_in_bytes': '9223372036854771712\n' });
  const none = cgroupTree({});
  try {
    assert.deepEqual(resolveMemoryBudget('268435456', { root: v2 }), {
      bytes: 268435456,
      source: 'MEMORY_BUDGET_BYTES',
    });
    assert.equal(readCgroupLimit({ root: v2 })?.bytes, 1073741824);
    const fromV2 = resolveMemoryBudget(undefined, { root: v2 });
    assert.equal(fromV2.bytes, 536870912);
    assert.match(fromV2.source, /50% of the cgroup v2 memory.max limit \(1073741824 bytes\)/);
    const fromV1 = resolveMemoryBudget('not a number', { root: v1 });
    assert.equal(fromV1.bytes, 268435456);
    assert.match(fromV1.source, /cgroup v1 memory.limit_in_bytes/);
    for (const root of [unlimitedV2, unlimitedV1, none]) {
      assert.deepEqual(resolveMemoryBudget('-5', { root }), {
        bytes: DEFAULTS.memoryBudgetBytes,
        source: 'default, no container limit found',
      });
    }
  } finally {
    for (const root of [v2, v1, unlimitedV2, unlimitedV1, none]) {
      Deno.removeSync(root, { recursive: true });
    }
  }
});

Deno.test('the startup line prints the budget and where it came from; off turns it off', () => {
  const facts = { allowlistSize: null, registrySize: null };
  const config = resolveConfig({}, { MEMORY_BUDGET_BYTES: '268435456' });
  assert.match(
    configurationLine(config, facts),
    /memory budget 268435456 bytes \(MEMORY_BUDGET_BYTES\)/,
  );
  const off = resolveConfig({}, { MEMORY_BUDGET_BYTES: 'off' });
  assert.equal(off.memoryBudget.bytes, null);
  assert.match(configurationLine(off, facts), /memory budget OFF/);
});

Deno.test('idle again: what resident memory keeps after the last socket is the new start', async () => {
  let rss = 50 * MIB;
  let now = 0;
  const memory = new MemoryAccountant(100 * MIB, () => rss, { now: () => now, collect: () => {} });
  const one = socket(true);
  one.s.account = memory.open(one.sheddable);
  one.s.account.set(10 * MIB);
  rss = 50 * MIB + 90 * MIB; // growth 90 > 75: pressure
  now += LATER;
  memory.sample();
  assert.equal(memory.level, 'pressure');
  // the socket goes; the allocator keeps 85 MiB of what it held (still past 75)
  rss = 50 * MIB + 85 * MIB;
  one.s.account.close();
  await new Promise((resolve) => queueMicrotask(() => resolve(null)));
  assert.equal(memory.held, 0);
  assert.equal(memory.residentGrowth, 0, 'the idle reading is the new start');
  assert.equal(memory.level, 'normal', 'an idle process refuses no socket for slack');
  assert.equal(memory.refuseSocket(), false);
  // growth from there counts again
  const two = socket(true);
  two.s.account = memory.open(two.sheddable);
  rss = 50 * MIB + 85 * MIB + 80 * MIB;
  now += LATER;
  memory.sample();
  assert.equal(memory.level, 'pressure');
  two.s.account.close();
  memory.stop();
});

Deno.test('shedding collects at once, however soon after the last collection', () => {
  let rss = 50 * MIB;
  let now = 0;
  let collections = 0;
  const memory = new MemoryAccountant(100 * MIB, () => rss, {
    now: () => now,
    collect: () => collections++,
  });
  const held = socket(true);
  held.s.account = memory.open(held.sheddable);
  rss = 50 * MIB + 90 * MIB; // growth past pressure: the reading collects first
  now += LATER;
  memory.sample();
  assert.equal(collections, 1);
  now += 1; // well within memoryCollectEveryMs of it
  memory.sample(true);
  assert.equal(collections, 1, 'a pressure reading waits memoryCollectEveryMs');
  held.s.account.set(120 * MIB); // past the budget: shed
  assert.equal(held.s.shed, 1);
  assert.equal(collections, 2, 'what the shed socket held is collected at once');
  memory.stop();
});

Deno.test('a request reserves only what fits the budget, synchronously, and gives it back', () => {
  // under memoryLargeRequestBytes each, so the budget itself is the room
  const memory = new MemoryAccountant(10 * MIB, null);
  const [first, second] = [new RequestState(memory), new RequestState(memory)];
  assert.equal(first.reserve(6 * MIB), true);
  assert.equal(second.reserve(4 * MIB), true, 'at the budget: admitted');
  assert.equal(memory.held, 10 * MIB);
  assert.equal(second.reserve(1), false, 'one byte past it: refused');
  assert.equal(memory.held, 10 * MIB, 'a refused reservation counts nothing');
  assert.equal(memory.actions.refused_request, 1);
  first.release();
  second.release();
  second.release();
  assert.equal(memory.held, 0);
  const untracked = new RequestState(null);
  assert.equal(untracked.reserve(500 * MIB), true, 'an untracked request is not counted');
});

Deno.test('an idle process is not left under pressure by what requests left resident', async () => {
  let rss = 100 * MIB;
  let now = 0;
  let collections = 0;
  const memory = new MemoryAccountant(100 * MIB, () => rss, {
    now: () => now,
    collect: () => collections++,
  });
  const request = new RequestState(memory);
  assert.equal(request.reserve(10 * MIB), true);
  rss += 90 * MIB; // a burst's garbage and the allocator's slack, past the pressure threshold
  now += LATER;
  memory.sample();
  assert.equal(memory.level, 'pressure');
  request.release(); // the last request: a collection and a fresh start
  await Promise.resolve();
  assert.ok(collections >= 2);
  assert.equal(memory.residentGrowth, 0);
  assert.equal(memory.level, 'normal');
  assert.equal(memory.refuseSocket(), false);
});

Deno.test('a large reservation fits under the pressure threshold; its end collects', () => {
  let collections = 0;
  let now = 0;
  const memory = new MemoryAccountant(100 * MIB, null, {
    now: () => now,
    collect: () => collections++,
  });
  const large = DEFAULTS.memoryLargeRequestBytes;
  const [a, b, c] = [new RequestState(memory), new RequestState(memory), new RequestState(memory)];
  assert.equal(a.reserve(memory.pressureBytes - large), true);
  assert.equal(b.reserve(large), true, 'at the pressure threshold: admitted');
  assert.equal(c.reserve(large), false, 'past it: refused, though within the budget');
  assert.equal(c.reserve(large - 1), true, 'a smaller one fits up to the budget');
  assert.equal(memory.held, memory.pressureBytes + large - 1);
  c.release();
  assert.equal(collections, 0, 'a small request ending collects nothing');
  b.release();
  assert.equal(collections, 1, 'a large one ending collects');
  now += DEFAULTS.memoryCollectEveryMs - 1;
  a.release();
  assert.equal(collections, 1, 'at most every memoryCollectEveryMs');
  assert.equal(memory.held, 0);
});
