/**
 * The relay scenario's stalled-subscriber pass (docs/operations.md "Slow and vanished peers on the
 * relay"): `sockets` graphql-transport-ws subscribers (the `ws` client) that subscribe to a stream
 * of the flood upstream and then stop reading their TCP socket (`pause()`, as a stalled tab), while
 * the target process's resident memory (VmRSS) is read every second. A relay without flow control
 * grows by what the upstream sends (about 25 MB/s a socket on Deno without flow control); one with
 * it stays flat.
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
}

/** The readings: before the sockets opened, then one a second (bytes). */
export interface StalledMemory {
  beforeBytes: number;
  samples: number[];
  /** Largest reading minus the first, bytes. */
  maxGrowthBytes: number;
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

/** Runs the pass; every socket is terminated before it returns. */
export async function stalledMemory(spec: StalledSpec): Promise<StalledMemory> {
  const beforeBytes = await residentBytes(spec.pid);
  const sockets: WsClient[] = [];
  try {
    for (let i = 0; i < spec.sockets; i++) sockets.push(await stalledSubscriber(spec));
    const samples: number[] = [];
    for (let i = 0; i < spec.seconds; i++) {
      await sleep(1000);
      samples.push(await residentBytes(spec.pid));
    }
    return { beforeBytes, samples, maxGrowthBytes: Math.max(...samples) - beforeBytes };
  } finally {
    for (const ws of sockets) ws.terminate();
  }
}

/** A target of the pass, as the relay scenario names it. */
export interface StalledTarget {
  label: string;
  url: string;
  initPayload: Record<string, unknown>;
  pid: number;
}

/** Stalled sockets per target, and readings (one a second). */
export const STALLED_PASS = { sockets: 4, seconds: 10 } as const;

/**
 * Runs the pass on each target in turn, one note line each: the largest growth over the
 * readings and every reading's growth, MiB.
 */
export async function stalledNotes(
  targets: StalledTarget[],
  payload: SocketPayload,
): Promise<string[]> {
  const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  const lines: string[] = [];
  for (const t of targets) {
    const m = await stalledMemory({ ...t, payload, ...STALLED_PASS });
    const series = m.samples.map((b) => mib(b - m.beforeBytes)).join(' ');
    lines.push(
      `stalled subscribers, ${t.label}: ${STALLED_PASS.sockets} sockets stop reading; RSS ` +
        `${mib(m.beforeBytes)} MiB, growth max ${mib(m.maxGrowthBytes)} MiB ` +
        `(each second: ${series})`,
    );
  }
  return lines;
}
