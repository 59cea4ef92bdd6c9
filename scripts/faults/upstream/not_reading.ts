/**
 * An upstream that stops reading the gateway's frames (docs/operations.md "Faults"; the relay's
 * flow control is the relay's own item, src/ws: this fault only measures it). The stand-in keeps
 * its piped sockets open and keeps sending the upstream's frames, but reads nothing more from the
 * gateway; a browser then sends FLOOD_BYTES of subscribe/complete frames (each under the 1 MiB
 * browser frame: a long comment in the document, which the cost limits do not count). What the
 * gateway holds meanwhile shows as its peak resident memory. The relay's flow control ends the
 * socket 1013 once the frames it could not write pass its cap (or stay over its high-water mark
 * past the stall timeout); failing that, its keepalive (a ping unanswered: 1012), so a run may
 * last two ping periods (DEFAULTS.wsPingIntervalMs) whatever its duration. Soak only: not in
 * the brief CI run for that reason.
 */
import { DEFAULTS } from '../../../src/config/defaults.ts';
import { WORLD_IDS } from '../../sandbox/mod.ts';
import type { Fault, FaultHost, FaultRunOptions } from '../fault.ts';
import { type FaultWorld, runFault } from '../run.ts';
import { BOOKINGS, count } from '../traffic.ts';

/** Bytes of frames the browser sends once the upstream stopped reading. */
const FLOOD_BYTES = 128 * 1024 * 1024;
/** One frame's size (bytes), under the 1 MiB browser frame. */
const FRAME_BYTES = 900 * 1024;
/** The browser's own send buffer is kept under this (bytes). */
const CLIENT_BUFFER_BYTES = 4 * 1024 * 1024;
/** How long the socket may take to end once the flood was sent: two ping periods and slack. */
const END_MS = 2 * DEFAULTS.wsPingIntervalMs + 15_000;

/** Opens a socket, acknowledged; resolves with it and a promise of its close code. */
async function openAcked(gateway: string) {
  const ws = new WebSocket(`${gateway.replace('http', 'ws')}/svc/graphql`, 'graphql-transport-ws');
  const closed = new Promise<number>((resolve) => ws.onclose = (e) => resolve(e.code));
  await new Promise((resolve, reject) => (ws.onopen = resolve, ws.onerror = reject));
  const acked = new Promise((resolve) =>
    ws.onmessage = (e) => JSON.parse(e.data).type === 'connection_ack' && resolve(true)
  );
  ws.send(JSON.stringify({ type: 'connection_init', payload: {} }));
  await acked;
  return { ws, closed };
}

/** Sends subscribe/complete pairs until FLOOD_BYTES went out or the socket closed. */
async function flood(ws: WebSocket): Promise<number> {
  const query = `# ${'x'.repeat(FRAME_BYTES)}\n${BOOKINGS}`;
  let sent = 0;
  for (let i = 0; sent < FLOOD_BYTES && ws.readyState === WebSocket.OPEN; i++) {
    while (ws.bufferedAmount > CLIENT_BUFFER_BYTES && ws.readyState === WebSocket.OPEN) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const id = `f${i}`;
    ws.send(JSON.stringify({
      id,
      type: 'subscribe',
      payload: { query, variables: { botID: WORLD_IDS.bot1 } },
    }));
    ws.send(JSON.stringify({ id, type: 'complete' }));
    sent += FRAME_BYTES;
  }
  return sent;
}

async function drive(world: FaultWorld): Promise<void> {
  const { ws, closed } = await openAcked(world.gateway.url);
  world.standIn.readsStopped = true;
  try {
    const sent = await flood(ws);
    count(
      world.tally,
      sent >= FLOOD_BYTES ? 'flood sent whole' : 'flood held back by the gateway',
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const code = await Promise.race([
      closed,
      new Promise<null>((r) => timer = setTimeout(() => r(null), END_MS)),
    ]);
    clearTimeout(timer);
    count(world.tally, code === null ? 'flooder still open' : `flooder close ${code}`);
  } finally {
    world.standIn.readsStopped = false;
    ws.close();
  }
}

const name = "upstream: stops reading the gateway's frames";

/** The fault (see the module comment). */
export const notReadingFault: Fault = {
  name,
  hosts: ['deno', 'node'],
  run: (host: FaultHost, options: FaultRunOptions) =>
    runFault(name, host, options, {
      // sent whole (the gateway buffered it) or held back (flow control reached the browser)
      expected: [
        'flood sent whole',
        'flood held back by the gateway',
        'flooder close 1013',
        'flooder close 1012',
      ],
      // which of them a run sees depends on the host and the timing
      required: [],
      // ordinary subscriptions share the stalled upstream: their legs end the same ways
      others: ['close 1013', 'close 1012'],
      drive,
    }),
};
