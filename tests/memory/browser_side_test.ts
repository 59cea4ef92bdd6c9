/**
 * The memory budget on the browser side (docs/operations.md "Memory"), both hosts, each its own
 * process, MEMORY_BUDGET_BYTES at 256 MiB, a GraphQL POST every 250 ms throughout:
 * - 4 sockets, then more one at a time while the level reads pressure (until one is refused),
 *   subscribe naming a bot while the fence's lookup is slow (9 s), then send 64 frames of 1 MiB
 *   each (the browser frame ceiling), all held behind the pending check: the
 *   count stays within the budget (the sockets holding the most were closed 1013 with the
 *   documented reason, new ones refused past the pressure threshold), resident memory grows by
 *   less than the budget at its peak, nothing of the held frames reached the upstream before
 *   the lookup answered, and every POST answered 200;
 * - 8 uploads (REST_MAX_CONCURRENT) of 25 MiB (the ceiling) to an upstream that reads slowly:
 *   all forwarded whole, resident memory within the budget, POSTs 200;
 * - once everything is gone, the counted bytes and the relay's counts are back at zero.
 */
import assert from 'node:assert/strict';
import { WebSocket as WsClient } from 'ws';
import type { HostKind } from '../../scripts/host_process.ts';
import { FLOOD_QUERY } from '../../scripts/bench/flood_upstream.ts';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { type BigUpstream, startBigUpstream } from './big_upstream.ts';
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

/** The first wave passes the budget (64 frames of 1 MiB each, counted 3x). */
const FIRST_WAVE = 4;
/** The second wave's most sockets, opened one at a time past the pressure threshold. */
const SECOND_WAVE_MAX = 8;
const HELD_FRAMES = 64;
/** A ping frame of exactly the browser frame ceiling (1 MiB). */
const BIG_PING = (() => {
  const head = '{"type":"ping","payload":{"pad":"';
  const tail = '"}}';
  return head + 'x'.repeat(MIB - head.length - tail.length) + tail;
})();
/** Below the fence's 10 s lookup deadline. */
const LOOKUP_DELAY_MS = 9_000;
const UPLOADS = 8;
const UPLOAD_BYTES = 25 * MIB;
const SHED_REASON = /short of memory/;

const wsUrl = (url: string) => `${url.replace(/^http/, 'ws')}/svc/graphql`;

/**
 * A browser socket that subscribes naming bot1, then sends HELD_FRAMES maximum-size frames, each
 * once its own unsent bytes are under two frames (so the test sends no faster than the gateway
 * reads); `pumped` resolves when all went or the socket closed.
 */
interface Heavy {
  admitted: boolean;
  close: { code: number; reason: string } | null;
  closed: Promise<void>;
  pumped: Promise<void>;
  ws: WsClient;
}

async function heavySocket(url: string): Promise<Heavy> {
  const ws = new WsClient(url, 'graphql-transport-ws', { perMessageDeflate: false });
  const acked = Promise.withResolvers<boolean>();
  const socket: Heavy = {
    admitted: false,
    close: null,
    closed: Promise.resolve(),
    pumped: Promise.resolve(),
    ws,
  };
  socket.closed = new Promise((resolve) =>
    ws.on('close', (code, reason) => {
      socket.close = { code, reason: String(reason) };
      acked.resolve(false);
      resolve();
    })
  );
  ws.on('error', () => {/* a close follows */});
  ws.on('message', (data) => {
    if (JSON.parse(String(data)).type === 'connection_ack') acked.resolve(true);
  });
  ws.on('open', () => ws.send('{"type":"connection_init","payload":{}}'));
  if (!await acked.promise) return socket;
  socket.admitted = true;
  ws.send(JSON.stringify({
    id: 's',
    type: 'subscribe',
    payload: { query: FLOOD_QUERY, variables: { botID: WORLD_IDS.bot1 } },
  }));
  socket.pumped = (async () => {
    for (let sent = 0; sent < HELD_FRAMES && socket.close === null;) {
      if (ws.bufferedAmount >= 2 * MIB) {
        await sleep(5);
        continue;
      }
      ws.send(BIG_PING);
      sent++;
    }
  })();
  return socket;
}

async function heldFrames(kind: HostKind, gatewayUrl: string, pid: number, up: BigUpstream) {
  const start = await residentBytes(pid);
  const rss = sampleResident(pid);
  const posts = postLoop(gatewayUrl);
  const sockets: Heavy[] = [];
  const firstSubscribe = Date.now();
  // a first wave, opened at once, sends its frames (or is closed), at most until shortly before
  // the lookup answers; then a second wave arrives
  const window = (reserve: number) =>
    sleep(Math.max(0, LOOKUP_DELAY_MS - reserve - (Date.now() - firstSubscribe)));
  const late = (reserve: number) => Date.now() - firstSubscribe >= LOOKUP_DELAY_MS - reserve;
  sockets.push(
    ...await Promise.all(
      Array.from({ length: FIRST_WAVE }, () => heavySocket(wsUrl(gatewayUrl))),
    ),
  );
  // the second wave comes while the process is past its pressure threshold: one socket at a time,
  // each once the level reads pressure, until one is refused (shedding and a collection bring the
  // level back down between readings, so one reading of pressure does not promise the next)
  const level = () => metricAt(gatewayUrl, 'svc_memory_level');
  const refused = () => metricAt(gatewayUrl, 'svc_memory_actions_total{action="refused_socket"}');
  for (let n = 0; n < SECOND_WAVE_MAX && !late(2_000) && await refused() === 0; n++) {
    while (await level() < 1 && !late(2_000)) await sleep(20);
    if (late(2_000)) break;
    sockets.push(await heavySocket(wsUrl(gatewayUrl)));
  }
  await window(1_500);
  const during = await fetchMetrics(gatewayUrl);
  const action = (a: string) => during.get(`svc_memory_actions_total{action="${a}"}`) ?? 0;
  const admitted = sockets.filter((s) => s.admitted);
  console.log(
    `[${kind}] held frames: ${Date.now() - firstSubscribe} ms; ${admitted.length} admitted; held ${
      ((during.get('svc_memory_held_bytes') ?? 0) / MIB).toFixed(0)
    } MiB; shed ${action('shed_socket')}, refused ${action('refused_socket')}`,
  );
  assert.ok((during.get('svc_memory_held_bytes') ?? 0) <= BUDGET_BYTES, 'the count is in budget');
  assert.ok(action('shed_socket') >= 1, 'sockets holding the most were shed');
  assert.ok(action('refused_socket') >= 1, 'new sockets were refused under pressure');
  assert.equal(up.subscribes, 0, 'no held subscribe reached the upstream before its check');
  assert.equal(up.slowRequests, 1, 'one fence lookup, still pending');

  // the shed ones saw the documented close (both hosts' browser legs are `ws`, which sends it)
  const shedSeen = () => sockets.filter((s) => SHED_REASON.test(s.close?.reason ?? ''));
  const dropped = () => sockets.filter((s) => s.admitted && s.close?.code === 1006);
  const shedTotal = action('shed_socket');
  await until(() => shedSeen().length >= shedTotal, 10_000, 'the shed closes');
  console.log(`[${kind}] shed: ${shedSeen().length} saw 1013, ${dropped().length} saw 1006`);
  assert.ok(shedSeen().length >= 1, 'the documented close');
  for (const s of shedSeen()) assert.equal(s.close!.code, 1013);
  assert.equal(shedSeen().length, shedTotal);
  const peak = await rss.stop();
  const statuses = await posts.stop();
  console.log(`[${kind}] held frames: RSS peak growth ${((peak - start) / MIB).toFixed(0)} MiB`);
  assert.ok(peak - start < BUDGET_BYTES, `RSS grew ${((peak - start) / MIB).toFixed(0)} MiB`);
  assert.deepEqual(statuses.filter((s) => s !== 200), [], 'every POST answered 200');
  assert.ok(statuses.length > 4);
  for (const s of sockets) s.ws.terminate();
}

async function uploads(kind: HostKind, gatewayUrl: string, pid: number, up: BigUpstream) {
  const start = await residentBytes(pid);
  const rss = sampleResident(pid);
  const posts = postLoop(gatewayUrl);
  const body = new Uint8Array(UPLOAD_BYTES);
  const before = up.uploadBytes;
  const answers = await Promise.all(Array.from({ length: UPLOADS }, async () => {
    const res = await fetch(`${gatewayUrl}/svc/api/filestorage/upload/useraccount`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body,
    });
    await res.body?.cancel();
    return res.status;
  }));
  const peak = await rss.stop();
  const statuses = await posts.stop();
  console.log(`[${kind}] uploads: RSS peak growth ${((peak - start) / MIB).toFixed(0)} MiB`);
  assert.deepEqual(answers, Array(UPLOADS).fill(200));
  assert.equal(up.uploadBytes - before, UPLOADS * UPLOAD_BYTES, 'every upload forwarded whole');
  assert.ok(peak - start < BUDGET_BYTES, `RSS grew ${((peak - start) / MIB).toFixed(0)} MiB`);
  assert.deepEqual(statuses.filter((s) => s !== 200), [], 'every POST answered 200');
}

async function fetchMetrics(url: string) {
  return await metrics({ url } as Parameters<typeof metrics>[0]);
}

async function metricAt(url: string, name: string): Promise<number> {
  return (await fetchMetrics(url)).get(name) ?? 0;
}

async function scenario(kind: HostKind): Promise<void> {
  const upstream = await startBigUpstream({
    frameBytes: 1024,
    httpDelayMs: LOOKUP_DELAY_MS,
    slowUrl: /op=SvcWorkspaceBots/,
    uploadReadDelayMs: 2,
  });
  const gateway = await startGateway(kind, upstream.url, { TENANT_MAX_SOCKETS: '64' });
  try {
    await heldFrames(kind, gateway.url, gateway.pid, upstream);
    await until(async () => await metric(gateway, 'svc_relay_sockets') === 0, 15_000, 'sockets');
    await uploads(kind, gateway.url, gateway.pid, upstream);
    const after = await metrics(gateway);
    assert.equal(after.get('svc_memory_held_bytes'), 0, 'nothing counted once all are gone');
    assert.equal(after.get('svc_relay_upstream_sockets'), 0);
    assert.equal(after.get('svc_relay_timers'), 0);
    assert.equal(after.get('svc_rest_in_flight'), 0);
  } finally {
    await gateway.stop();
    await upstream.close();
  }
}

for (const kind of ['deno', 'node'] as const) {
  Deno.test({
    name: `[${kind}] held maximum-size frames and uploads at their ceiling stay within the budget`,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: () => scenario(kind),
  });
}
