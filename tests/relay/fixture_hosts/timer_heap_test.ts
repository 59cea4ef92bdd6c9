/**
 * The relay's shared timer heap (src/ws/timer_heap.ts): deadline order, cancelling, intervals
 * through SocketTimers, and no runtime timer left once the heap is empty (Deno's sanitizer
 * fails a test that leaves one).
 */
import assert from 'node:assert/strict';
import { TimerHeap } from '../../../src/ws/timer_heap.ts';
import { newCounters, SocketTimers } from '../../../src/ws/counters.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test('entries run in deadline order, ties in scheduling order', async () => {
  const heap = new TimerHeap();
  const ran: string[] = [];
  const delays = [40, 10, 30, 10, 0, 20, 50, 30];
  delays.forEach((ms, i) => heap.schedule(ms, () => ran.push(`${ms}:${i}`)));
  assert.equal(heap.size, delays.length);
  await sleep(120);
  assert.deepEqual(ran, ['0:4', '10:1', '10:3', '20:5', '30:2', '30:7', '40:0', '50:6']);
  assert.equal(heap.size, 0);
});

Deno.test('a cancelled entry never runs; cancelling twice or after it ran is harmless', async () => {
  const heap = new TimerHeap();
  const ran: number[] = [];
  const entries = Array.from({ length: 50 }, (_, i) => heap.schedule(i % 7, () => ran.push(i)));
  const cancelled = new Set([0, 3, 17, 25, 49, 12]);
  for (const i of cancelled) heap.cancel(entries[i]);
  heap.cancel(entries[3]);
  assert.equal(heap.size, 44);
  await sleep(40);
  assert.deepEqual(
    ran.sort((a, b) => a - b),
    entries.map((_, i) => i).filter((i) => !cancelled.has(i)),
  );
  heap.cancel(entries[1]);
  assert.equal(heap.size, 0);
});

Deno.test('an entry does not run before its deadline', async () => {
  const heap = new TimerHeap();
  const started = performance.now();
  let ranAfter = -1;
  heap.schedule(5, () => {});
  heap.schedule(60, () => ranAfter = performance.now() - started);
  await sleep(30);
  assert.equal(ranAfter, -1);
  await sleep(60);
  assert.ok(ranAfter >= 59, `ran after ${ranAfter} ms`);
});

Deno.test('a long deadline cancelled early leaves no runtime timer behind', async () => {
  const heap = new TimerHeap();
  const entry = heap.schedule(3_600_000, () => assert.fail('must not run'));
  await sleep(5);
  heap.cancel(entry);
  assert.equal(heap.size, 0);
  // the test sanitizer fails this test if the heap's runtime timer were still pending
});

Deno.test('SocketTimers: intervals repeat until cleared; counts follow', async () => {
  const counters = newCounters();
  const timers = new SocketTimers(counters, new TimerHeap());
  let ticks = 0;
  let once = 0;
  timers.every('browserKeepalive', 10, () => ticks++);
  timers.once('life', 25, () => once++, undefined);
  timers.once('init', 1000, () => assert.fail('replaced before it ran'), undefined);
  timers.once('init', 5, () => once++, undefined);
  assert.equal(counters.timers, 3);
  await sleep(60);
  assert.ok(ticks >= 3, `ticks ${ticks}`);
  assert.equal(once, 2);
  assert.equal(counters.timers, 1);
  timers.clearAll();
  const seen = ticks;
  await sleep(30);
  assert.equal(ticks, seen);
  assert.equal(counters.timers, 0);
});
