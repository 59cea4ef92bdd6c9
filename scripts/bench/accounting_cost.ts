/**
 * The memory accountant's cost on the relay's hot path, in process (docs/operations.md "Memory"):
 * one relayed socket over in-memory sockets (no network, no other process), its upstream sending
 * `next` frames of about 1 KiB that the relay parses, re-serialises and writes to the browser;
 * the same with the accountant (a 512 MiB budget) and without, in alternating rounds. The figure
 * is frames per second with it x without, per round (the median is the one to read). Run:
 * `deno run --allow-all scripts/bench/accounting_cost.ts [rounds] [frames]`.
 *
 * The figure is CPU time (this process's user + system), so other processes on a shared
 * machine weigh less than on wall time; process-level runs against a flood upstream could not
 * separate a 2% effect from the machine's drift.
 */
import {
  createRelay,
  type RelaySocket,
  type SocketListener,
  type UpstreamSocket,
} from '../../src/ws/mod.ts';
import { MemoryAccountant } from '../../src/memory/accountant.ts';
import { residentReader } from '../../src/memory/resident.ts';
import process from 'node:process';

const FRAME = (id: string, seq: number) =>
  `{"id":"${id}","type":"next","payload":{"data":{"bookingAdded":{"id":"${seq}","pad":"${
    'x'.repeat(900)
  }"}}}}`;

/** Relays `frames` upstream frames through one socket; CPU ms taken (user + system). */
async function relayOnce(frames: number, memory: MemoryAccountant | undefined): Promise<number> {
  let upstreamListener: SocketListener | null = null;
  let browserListener: SocketListener | null = null;
  const upstreamMessage = (text: string, bytes: number) =>
    upstreamListener!.socketMessage(text, bytes);
  const upstreamOpen = () => upstreamListener!.socketOpened!();
  const browserMessage = (text: string, bytes: number) =>
    browserListener!.socketMessage(text, bytes);
  let received = 0;
  let acked: () => void = () => {};
  const ackSeen = new Promise<void>((resolve) => acked = resolve);
  const upstream: UpstreamSocket = {
    send(text) {
      if (text.includes('connection_init')) {
        queueMicrotask(() => upstreamMessage('{"type":"connection_ack"}', 25));
      }
    },
    close() {},
    listen: (listener) => upstreamListener = listener,
    bufferedAmount: () => 0,
    pause() {},
    resume() {},
  };
  const browser: RelaySocket = {
    send(text) {
      if (text.includes('connection_ack')) acked();
      else received++;
    },
    close() {},
    listen: (listener) => browserListener = listener,
    bufferedAmount: () => 0,
  };
  const relay = createRelay({
    upstreamWsUrl: 'ws://upstream.invalid/graphql',
    token: () => 'bench-token',
    limits: { wsMaxSockets: 10, wsPreAuthSockets: 10, wsInitTimeoutMs: 5_000 },
    admit: () => Promise.resolve({ ok: true, session: {} }), // the gate off: every socket admitted
    checkSubscribe: (payload) => ({ ok: true, payload: payload as never }),
    rewriteErrors: (result) => result,
    rewriteCloseReason: (reason) => reason,
    openUpstream: () => {
      queueMicrotask(() => upstreamOpen());
      return upstream;
    },
    memory,
  });
  relay.accept(browser);
  browserMessage('{"type":"connection_init","payload":{}}', 39);
  await ackSeen;
  const subscribe = '{"id":"s","type":"subscribe","payload":{"query":"subscription { x }"}}';
  browserMessage(subscribe, subscribe.length);
  const texts = Array.from({ length: 64 }, (_, i) => FRAME('s', i));
  const started = process.cpuUsage();
  for (let i = 0; i < frames; i++) {
    const text = texts[i & 63];
    upstreamMessage(text, text.length);
  }
  const used = process.cpuUsage(started);
  const took = (used.user + used.system) / 1000;
  if (received !== frames) throw new Error(`relayed ${received} of ${frames}`);
  await relay.closeAll();
  return took;
}

const rounds = Number(Deno.args[0] ?? 15);
const frames = Number(Deno.args[1] ?? 50_000);
const memory = new MemoryAccountant(512 * 1024 * 1024, residentReader());
await relayOnce(frames, undefined); // warm-up, both paths
await relayOnce(frames, memory);
const ratios: number[] = [];
for (let round = 0; round < rounds; round++) {
  const first = round % 2 === 0;
  const a = await relayOnce(frames, first ? undefined : memory);
  const b = await relayOnce(frames, first ? memory : undefined);
  const [off, on] = first ? [a, b] : [b, a];
  ratios.push(off / on); // frames/s on x off
}
memory.stop();
const sorted = [...ratios].sort((x, y) => x - y);
console.log(
  `relay frames per CPU second with the accountant x without, ${rounds} rounds of ${frames} frames: ` +
    `median ${sorted[sorted.length >> 1].toFixed(3)}, ` +
    `min ${sorted[0].toFixed(3)}, max ${sorted[sorted.length - 1].toFixed(3)}`,
);
console.log(`held after: ${memory.held} bytes`);
