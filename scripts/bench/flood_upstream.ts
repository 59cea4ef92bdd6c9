/**
 * The flood upstream (docs/operations.md "Slow and vanished peers on the relay"), for the relay scenario and the flow-control tests: a
 * graphql-transport-ws server (any path) whose every subscription streams `next` frames as
 * fast as its socket drains (it sends while its own unsent bytes are under SEND_AHEAD_BYTES,
 * then waits a millisecond), each carrying its sequence number; a subscribe whose query is a
 * `query` gets one fixed `next` (`currentUser`) and `complete` (a round trip); and every HTTP
 * request is answered with the bench's fixed answer (which also satisfies the gateway's bot fence
 * for bot1). It executes nothing and checks no token. It records, per subscription, how many
 * frames it sent and reads its socket's unsent bytes on demand, so a test sees backpressure reach
 * it; a test can halt one stream to count what it sent in all.
 *
 * Run as its own process: `deno run --allow-net --allow-env scripts/bench/flood_upstream.ts`;
 * HOST (127.0.0.1) and PORT (0: a free port); prints its URL as the first line.
 */
import { fixedAnswer } from './fixed_upstream.ts';

/** The upstream's own send-ahead: it stops sending while its socket holds this many unsent bytes. */
export const SEND_AHEAD_BYTES = 256 * 1024;

/** The subscription every flow test sends (bot1 passes the gateway's fence). */
export const FLOOD_QUERY =
  'subscription Flood($botID: BotID!) { bookingAdded(botID: $botID) { id } }';

/**
 * A subscription whose operation is named `FloodSmall` streams small frames instead (about 100
 * bytes with graphql-ws's ids: `{bookingAdded: {id}}` and nothing else).
 */
export const SMALL_NAME = 'FloodSmall';

/** The small-frame flood subscription (see {@link SMALL_NAME}). */
export const SMALL_QUERY = FLOOD_QUERY.replace('Flood', SMALL_NAME);

/** One upstream subscription's stream. */
export interface FloodStream {
  id: string;
  /** The frames' padding (null: a small frame, no `pad` field). */
  pad?: string | null;
  /** Frames sent so far (sequence numbers 0 .. sent-1). */
  sent: number;
  /** The socket's unsent bytes now (0 once it is closed), read when called. */
  unsent(): number;
  /** Set to stop this stream sending (its socket stays open); `sent` is then final. */
  halted: boolean;
  /** True once the subscription ended (complete, or its socket closed). */
  ended: boolean;
}

/** A running flood upstream. */
export interface FloodUpstream {
  /** e.g. http://127.0.0.1:41234 (the socket is at /graphql, as the gateway derives it). */
  url: string;
  streams: FloodStream[];
  close(): Promise<void>;
}

/** A next frame carrying `seq`, padded with `pad` (null: no pad field, a small frame). */
function nextFrame(id: string, seq: number, pad: string | null | undefined): string {
  const fields = pad === null ? `"id":"${seq}"` : `"id":"${seq}","pad":"${pad}"`;
  return `{"id":${
    JSON.stringify(id)
  },"type":"next","payload":{"data":{"bookingAdded":{${fields}}}}}`;
}

/**
 * Streams every open subscription of `socket` as fast as the socket drains, one frame per
 * subscription in turn (so none starves another), until the socket closes. `live` is the
 * socket's open subscriptions; the pump stops when it is empty and is restarted by a subscribe.
 */
function pump(socket: WebSocket, live: Map<string, FloodStream>): () => void {
  let running = false;
  const step = () => {
    if (socket.readyState !== WebSocket.OPEN) {
      for (const stream of live.values()) stream.ended = true;
      live.clear();
    }
    if (live.size === 0) return void (running = false);
    const sending = [...live.values()].filter((stream) => !stream.halted);
    while (sending.length > 0 && socket.bufferedAmount < SEND_AHEAD_BYTES) {
      for (const stream of sending) {
        socket.send(nextFrame(stream.id, stream.sent, stream.pad));
        stream.sent++;
      }
    }
    setTimeout(step, 1);
  };
  return () => {
    if (running) return;
    running = true;
    step();
  };
}

/**
 * A subscription whose operation is named `Paced` streams one frame a millisecond instead
 * (timer-paced: about 1000 frames/s, less when the timer is late), for a healthy subscriber
 * whose own traffic should not dominate a memory reading.
 */
export const PACED_NAME = 'Paced';

/** The paced subscription (see {@link PACED_NAME}). */
export const PACED_QUERY = FLOOD_QUERY.replace('Flood', PACED_NAME);

/** Sends one frame of `stream` a millisecond until it ends or the socket closes. */
function paced(socket: WebSocket, stream: FloodStream, pad: string): void {
  const timer = setInterval(() => {
    if (stream.ended || socket.readyState !== WebSocket.OPEN) {
      stream.ended = true;
      return clearInterval(timer);
    }
    if (stream.halted) return;
    socket.send(nextFrame(stream.id, stream.sent, pad));
    stream.sent++;
  }, 1);
  socket.addEventListener('close', () => stream.ended = true);
}

/** The one answer of a query sent as a subscribe. */
const ROUND_TRIP = '{"data":{"currentUser":{"id":"bench-user"}}}';

/**
 * Starts the flood upstream on `hostname`:`port` (default a free loopback port); frames of about
 * `frameBytes` bytes.
 */
export function startFloodUpstream(
  frameBytes = 1024,
  hostname = '127.0.0.1',
  port = 0,
): Promise<FloodUpstream> {
  const streams: FloodStream[] = [];
  const pad = 'x'.repeat(Math.max(0, frameBytes - 90));
  const answer = fixedAnswer();
  const ac = new AbortController();
  const onSocket = (socket: WebSocket) => {
    const mine = new Map<string, FloodStream>();
    const start = pump(socket, mine);
    socket.addEventListener('message', (event) => {
      const frame = JSON.parse(String(event.data));
      if (frame.type === 'connection_init') socket.send('{"type":"connection_ack"}');
      else if (frame.type === 'ping') socket.send('{"type":"pong"}');
      else if (frame.type === 'subscribe' && /^\s*(query|\{)/.test(frame.payload.query)) {
        socket.send(`{"id":${JSON.stringify(frame.id)},"type":"next","payload":${ROUND_TRIP}}`);
        socket.send(`{"id":${JSON.stringify(frame.id)},"type":"complete"}`);
      } else if (frame.type === 'subscribe') {
        const small = frame.payload.query.includes(SMALL_NAME);
        const stream: FloodStream = {
          id: frame.id,
          pad: small ? null : pad,
          sent: 0,
          ended: false,
          halted: false,
          unsent: () => socket.readyState === WebSocket.OPEN ? socket.bufferedAmount : 0,
        };
        streams.push(stream);
        if (frame.payload.query.includes(PACED_NAME)) return paced(socket, stream, pad);
        mine.set(frame.id, stream);
        start();
      } else if (frame.type === 'complete') {
        const stream = mine.get(frame.id);
        if (stream) stream.ended = true;
        mine.delete(frame.id);
      }
    });
    socket.addEventListener('close', () => {
      for (const stream of mine.values()) stream.ended = true;
    });
  };
  return new Promise((resolve) => {
    const server = Deno.serve({
      hostname,
      port,
      signal: ac.signal,
      onListen: ({ port: bound }) =>
        resolve({
          url: `http://${hostname}:${bound}`,
          streams,
          async close() {
            for (const stream of streams) stream.ended = true;
            ac.abort();
            await server.finished;
          },
        }),
    }, async (request) => {
      if (request.headers.get('upgrade')?.toLowerCase() === 'websocket') {
        const { socket, response } = Deno.upgradeWebSocket(request, {
          protocol: 'graphql-transport-ws',
        });
        onSocket(socket);
        return response;
      }
      await request.arrayBuffer();
      return new Response(answer, { headers: { 'content-type': 'application/json' } });
    });
  });
}

if (import.meta.main) {
  const upstream = await startFloodUpstream(
    1024,
    Deno.env.get('HOST') ?? '127.0.0.1',
    Number(Deno.env.get('PORT') ?? '0'),
  );
  console.log(upstream.url);
  Deno.addSignalListener('SIGTERM', () => Deno.exit(0));
}
