/**
 * The relay scenario's stalled-subscriber pass (docs/operations.md "Slow and vanished peers on the
 * relay"): `sockets` graphql-transport-ws
 * subscribers (the `ws` client) that subscribe to a stream of the flood upstream and then stop
 * reading their TCP socket (`pause()`, as a stalled tab), while the target process's resident
 * memory (VmRSS) is read every second; then they close, and the memory is read a minute later,
 * before and after a collection the bench forces (inspector.ts). A relay without flow control
 * grows by what the upstream sends; one with it stays flat (docs/benchmarks.md "What this machine
 * can and cannot show").
 */
import { WebSocket as WsClient } from 'ws';
import { residentBytes } from './proc.ts';
import type { SocketPayload } from './socket_load.ts';

/** How the pass is run. */
export interface StalledSpec {
  /** ws://.../graphql (direct, nginx) or ws://.../svc/graphql (gateway). */
  url: string;
  initPayload: Record<string, unknown>;
  /** The subscription each stalled socket opens. */
  payload: SocketPayload;
  /** The process whose resident memory is read. */
  pid: number;
  /** Stalled sockets. */
  sockets: number;
  /** Readings, one a second. */
  seconds: number;
  /** Wait after the sockets closed before the last readings (s). */
  afterCloseS: number;
  /** Forces a full collection in the target before the very last reading. */
  gc?: () => Promise<void>;
}

/** The readings (bytes). */
export interface StalledMemory {
  /** Before the sockets opened. */
  beforeBytes: number;
  /** One a second while they stall. */
  samples: number[];
  /** Largest reading minus the first, bytes. */
  maxGrowthBytes: number;
  /** `afterCloseS` after every socket was closed, before and after a forced collection. */
  afterCloseBytes: number;
  afterGcBytes: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Opens one subscriber, waits for its ack, subscribes and stops reading. */
async function stalledSubscriber(spec: StalledSpec): Promise<WsClient> {
  const ws = new WsClient(spec.url, 'graphql-transport-ws', { perMessageDeflate: false });
  ws.on('error', () => {/* counted by the caller through the close */});
  await new Promise<void>((resolve, reject) => {
    ws.on('message', (data) => {
      if (JSON.parse(String(data)).type === 'connection_ack') resolve();
    });
    ws.on('close', (code) => reject(new Error(`stalled subscriber closed ${code} before its ack`)));
    ws.on(
      'open',
      () => ws.send(JSON.stringify({ type: 'connection_init', payload: spec.initPayload })),
    );
  });
  ws.send(JSON.stringify({ id: 's', type: 'subscribe', payload: spec.payload }));
  ws.pause();
  return ws;
}

/**
 * Runs the pass: the sockets stall for `seconds`, are closed, and the memory is read again
 * `afterCloseS` later, then once more after `spec.gc` (when given). Every socket is closed
 * before it returns.
 */
export async function stalledMemory(spec: StalledSpec): Promise<StalledMemory> {
  const beforeBytes = await residentBytes(spec.pid);
  const sockets: WsClient[] = [];
  const samples: number[] = [];
  try {
    for (let i = 0; i < spec.sockets; i++) sockets.push(await stalledSubscriber(spec));
    for (let i = 0; i < spec.seconds; i++) {
      await sleep(1000);
      samples.push(await residentBytes(spec.pid));
    }
  } finally {
    for (const ws of sockets) ws.terminate();
  }
  await sleep(spec.afterCloseS * 1000);
  const afterCloseBytes = await residentBytes(spec.pid);
  await spec.gc?.();
  const afterGcBytes = await residentBytes(spec.pid);
  return {
    beforeBytes,
    samples,
    maxGrowthBytes: Math.max(...samples) - beforeBytes,
    afterCloseBytes,
    afterGcBytes,
  };
}

/** A target of the pass, as the relay scenario names it. */
export interface StalledTarget {
  label: string;
  url: string;
  initPayload: Record<string, unknown>;
  pid: number;
  /** Forces a full collection in the target (the bench's, through the inspector). */
  gc?: () => Promise<void>;
}

/** Stalled sockets per target, readings (one a second), and the wait after they closed (s). */
export const STALLED_PASS = { sockets: 8, seconds: 25, afterCloseS: 60 } as const;

/**
 * What the gateways of the pass are started with: their stall close (WS_STALL_TIMEOUT_MS, 30 s by
 * default, docs/operations.md "Slow and vanished peers on the relay") put past the pass, so that
 * it cannot end the stall being measured (a subscriber pauses as it subscribes, before the 25 s
 * of readings start, and the readings run late on a busy machine). A stall close alone does not
 * move the reading, so a fall in the readings is the runtime giving memory back (docs/benchmarks.md
 * "What this machine can and cannot show").
 */
export const STALLED_HOST_ENV: Readonly<Record<string, string>> = {
  WS_STALL_TIMEOUT_MS: String((STALLED_PASS.seconds + 30) * 1000),
};

/** Seconds after which the readings should be flat (the burst before the pause is in). */
export const FLAT_AFTER_S = 5;

/**
 * Runs the pass on every target at once (each its own sockets), one note line each: the largest
 * growth, the growth after the first {@link FLAT_AFTER_S} seconds (flat: near 0), every reading,
 * and the distance from the start a minute after the close, before and after a forced
 * collection (MiB).
 */
export async function stalledNotes(
  targets: StalledTarget[],
  payload: SocketPayload,
): Promise<string[]> {
  const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  const results = await Promise.all(
    targets.map((t) => stalledMemory({ ...t, payload, ...STALLED_PASS })),
  );
  return results.map((m, i) => {
    const series = m.samples.map((b) => mib(b - m.beforeBytes)).join(' ');
    const drift = m.samples[m.samples.length - 1] - m.samples[FLAT_AFTER_S - 1];
    return `stalled subscribers, ${targets[i].label} (fresh): ${STALLED_PASS.sockets} sockets ` +
      `stop reading for ${STALLED_PASS.seconds} s; RSS ${mib(m.beforeBytes)} MiB, growth max ` +
      `${mib(m.maxGrowthBytes)} MiB, after ${FLAT_AFTER_S} s ${mib(drift)} MiB; ` +
      `${STALLED_PASS.afterCloseS} s after the close ${mib(m.afterCloseBytes - m.beforeBytes)} ` +
      `MiB from the start, after a forced collection ` +
      `${targets[i].gc ? mib(m.afterGcBytes - m.beforeBytes) : '-'} MiB ` +
      `(each second: ${series})`;
  });
}
