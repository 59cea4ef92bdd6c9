/**
 * The memory budget on the subscriber side (docs/operations.md "Memory"), both hosts, each its
 * own process: 48 subscribers stall on a stream of 4 MiB frames with MEMORY_BUDGET_BYTES at
 * 256 MiB, while a reading subscriber streams on the same process and a GraphQL POST is sent
 * every 250 ms.
 * - resident memory (read every 250 ms) grows by less than the budget at its peak;
 * - the reading subscriber keeps receiving, in order; every POST answers 200;
 * - the accountant acted: past the pressure threshold, new sockets were refused (upgrade 503 or
 *   1013 ProxyBusy) and, past the budget, the sockets holding the most were closed 1013 with the
 *   documented reason (seen by those subscribers once they read again);
 * - once every socket is gone, the counted bytes, the relay's counts and the level are back at
 *   zero, the JavaScript heap in use is back within HEAP_RETURN_BOUND of its start (what the
 *   gateway's own objects and their garbage come to), and resident memory below RETURN_BOUND,
 *   the pressure threshold: what glibc's arenas keep of the runtimes' native socket buffers
 *   (measured 64-121 MiB on the Deno host as `deno task serve` starts it, glibc's mmap threshold
 *   fixed and one arena; up to 135 MiB on Node under the full suite's load with 34 sockets admitted; the heap
 *   back at its start each time: docs/operations.md "Memory") never holds an idle process past it
 *   by itself.
 */
import assert from 'node:assert/strict';
import type { HostKind } from '../../scripts/host_process.ts';
import { FLOOD_QUERY, PACED_QUERY } from '../../scripts/bench/flood_upstream.ts';
import { subscribe, type Subscriber } from '../relay/subscriber.ts';
import { startBigUpstream } from './big_upstream.ts';
import { DEFAULTS } from '../../src/config/defaults.ts';
import {
  BUDGET_BYTES,
  metric,
  metrics,
  MIB,
  postLoop,
  residentBytes,
  sampleResident,
  sleep,
  startGateway,
  until,
} from './helpers.ts';

const FRAME_BYTES = 4 * MIB;
const STALLED = 48;
/** Distance from the starting resident memory allowed once every socket is gone: the pressure threshold. */
const RETURN_BOUND = BUDGET_BYTES * DEFAULTS.memoryPressureShare;
/** Distance from the starting JavaScript heap in use allowed once every socket is gone. */
const HEAP_RETURN_BOUND = 16 * MIB;
const SHED_REASON = /short of memory/;

const wsUrl = (url: string) => `${url.replace(/^http/, 'ws')}/svc/graphql`;

async function scenario(kind: HostKind): Promise<void> {
  const t0 = Date.now();
  const mark = (what: string) => console.log(`[${kind}] ${what} at ${Date.now() - t0} ms`);
  const upstream = await startBigUpstream({ frameBytes: FRAME_BYTES, pacedMs: 100 });
  const gateway = await startGateway(kind, upstream.url, { TENANT_MAX_SOCKETS: '64' });
  const opened: Subscriber[] = [];
  try {
    const reader = await subscribe(wsUrl(gateway.url), PACED_QUERY);
    assert.ok(reader.admitted, 'the reading subscriber is admitted');
    const healthy = reader.subscriber;
    opened.push(healthy);
    await until(() => healthy.state.received >= 5, 15_000, 'the reading stream');
    mark('reading');
    await sleep(500);
    const start = await residentBytes(gateway.pid);
    const heapStart = await metric(gateway, 'process_heap_used_bytes');
    const rss = sampleResident(gateway.pid);
    const posts = postLoop(gateway.url);

    const refused: number[] = [];
    const stalled: Subscriber[] = [];
    // one at a time, as sockets arrive: resident memory is read once a second, so a burst
    // admitted within one reading would all be in before the pressure threshold is seen
    for (let i = 0; i < STALLED; i++) {
      const s = await subscribe(wsUrl(gateway.url), FLOOD_QUERY);
      if (!s.admitted) {
        refused.push(s.code);
        continue;
      }
      s.subscriber.pause();
      stalled.push(s.subscriber);
      opened.push(s.subscriber);
    }
    mark('opened');
    const readBefore = healthy.state.received;
    await sleep(4_000);
    const during = await metrics(gateway);
    const peak = await rss.stop();
    const statuses = await posts.stop();
    const growth = peak - start;
    const action = (a: string) => during.get(`svc_memory_actions_total{action="${a}"}`) ?? 0;
    console.log(
      `[${kind}] RSS ${(start / MIB).toFixed(0)} MiB at start, peak growth ` +
        `${(growth / MIB).toFixed(0)} MiB; ${stalled.length} admitted, ${refused.length} refused ` +
        `(${[...new Set(refused)].join(',')}); held ${
          ((during.get('svc_memory_held_bytes') ?? 0) / MIB).toFixed(0)
        } MiB; actions pressure ${action('pressure')} refused_socket ${
          action('refused_socket')
        } shed ${action('shed_socket')}; POSTs ${statuses.length}`,
    );

    assert.ok(growth < BUDGET_BYTES, `RSS grew ${(growth / MIB).toFixed(0)} MiB at its peak`);
    assert.ok(healthy.state.received > readBefore, 'the reading subscriber kept receiving');
    assert.equal(healthy.state.outOfOrder, 0);
    assert.ok(statuses.length > 4);
    assert.deepEqual(statuses.filter((s) => s !== 200), [], 'every POST answered 200');
    assert.ok(action('pressure') >= 1, 'the process went past the pressure threshold');
    assert.ok(action('refused_socket') >= 1 && refused.length >= 1, 'new sockets were refused');
    for (const code of refused) assert.ok(code === 1013 || code === 1006, `refused ${code}`);

    // the stalled subscribers read again: each one the accountant shed finds the documented
    // close (shedding is what keeps the process under its budget when collecting is not enough;
    // the count here is whatever it took)
    upstream.quiet(); // what the stalled ones read now is what was on its way, not a new flood
    for (const s of stalled) s.resume();
    await sleep(1_000);
    const shedTotal = await metric(gateway, 'svc_memory_actions_total{action="shed_socket"}');
    const shedSeen = () => stalled.filter((s) => SHED_REASON.test(s.state.close?.reason ?? ''));
    // both hosts' browser legs are `ws`, which always sends the close
    const dropped = () => stalled.filter((s) => s.state.close?.code === 1006);
    await until(() => shedSeen().length >= shedTotal, 20_000, 'the shed closes');
    console.log(
      `[${kind}] shed ${shedTotal}: ${shedSeen().length} saw 1013, ${dropped().length} 1006`,
    );
    assert.equal(shedSeen().length, shedTotal, 'the documented close');
    for (const s of shedSeen()) assert.equal(s.state.close!.code, 1013);
    assert.equal(healthy.state.close, null, 'the reading subscriber was never shed');
    mark('shed closes seen');
    // everyone leaves: the counts go back to zero
    for (const s of opened) s.close();
    await until(async () => await metric(gateway, 'svc_relay_sockets') === 0, 15_000, 'sockets');
    mark('all gone');
    const after = await metrics(gateway);
    assert.equal(after.get('svc_memory_held_bytes'), 0, 'nothing counted once all are gone');
    assert.equal(after.get('svc_relay_paused'), 0);
    assert.equal(after.get('svc_relay_upstream_sockets'), 0);
    assert.equal(after.get('svc_relay_timers'), 0);
    const heapUp = await metric(gateway, 'process_heap_used_bytes') - heapStart;
    console.log(`[${kind}] heap in use once all are gone: ${(heapUp / MIB).toFixed(1)} MiB up`);
    assert.ok(heapUp < HEAP_RETURN_BOUND, `heap ${(heapUp / MIB).toFixed(1)} MiB up`);
    let settled = await residentBytes(gateway.pid);
    // the allocator hands pages back over the next collections: wait up to 20 s for it
    for (let i = 0; i < 40 && settled - start >= RETURN_BOUND; i++) {
      await sleep(500);
      settled = await residentBytes(gateway.pid);
    }
    console.log(`[${kind}] RSS once all are gone: ${((settled - start) / MIB).toFixed(0)} MiB up`);
    assert.ok(
      settled - start < RETURN_BOUND,
      `RSS ${((settled - start) / MIB).toFixed(0)} MiB up`,
    );
    // the level follows the next resident-memory reading (at most once a second once no socket
    // is open, docs/operations.md "Memory")
    await until(async () => await metric(gateway, 'svc_memory_level') === 0, 5_000, 'level 0');
  } finally {
    for (const s of opened) s.close();
    await gateway.stop();
    await upstream.close();
  }
}

for (const kind of ['deno', 'node'] as const) {
  Deno.test({
    name: `[${kind}] 48 subscribers stalled on 4 MiB frames stay within a 256 MiB budget`,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: () => scenario(kind),
  });
}
