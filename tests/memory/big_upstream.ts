/**
 * An upstream for the memory-budget tests (docs/operations.md "Memory"): a graphql-transport-ws
 * server (any path) whose subscriptions stream `next` frames of `frameBytes` bytes (the flood
 * frame's shape, so tests/relay/subscriber.ts counts their sequence numbers) while its own unsent
 * bytes are under one frame; a subscription named `Paced` gets one frame every `pacedMs`
 * instead (a reading subscriber). Every HTTP request is answered with the bench's fixed answer
 * (it satisfies the gateway's bot fence for bot1), after `httpDelayMs` when its URL matches
 * `slowUrl` (e.g. the fence's lookup, so a subscribe naming a bot waits on it); uploads are read slowly
 * (`uploadReadDelayMs` between chunks). `ackDelayMs` holds each socket's connection_ack back.
 * It records what it sent, so a test sees backpressure and what reached it.
 */
import { fixedAnswer } from '../../scripts/bench/fixed_upstream.ts';
import { PACED_NAME } from '../../scripts/bench/flood_upstream.ts';

/** How the upstream behaves. */
export interface BigUpstreamOptions {
  frameBytes: number;
  pacedMs?: number;
  ackDelayMs?: number;
  httpDelayMs?: number;
  slowUrl?: RegExp;
  uploadReadDelayMs?: number;
}

/** One subscription's stream. */
export interface BigStream {
  sent: number;
  ended: boolean;
}

/** A running upstream. */
export interface BigUpstream {
  url: string;
  streams: BigStream[];
  /** Subscribe frames received (none may arrive for a refused socket). */
  subscribes: number;
  /** HTTP requests received, those whose URL matched `slowUrl`, and upload bytes read. */
  requests: number;
  slowRequests: number;
  uploadBytes: number;
  /** Upgrades received. */
  sockets: number;
  /** Every stream stops sending (what is on its way still arrives). */
  quiet(): void;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The first half of a frame of about `bytes` bytes; the sequence number goes in between. */
function framePieces(bytes: number): [string, string] {
  const pad = 'x'.repeat(Math.max(0, bytes - 90));
  return [
    '","type":"next","payload":{"data":{"bookingAdded":{"id":"',
    `","pad":"${pad}"}}}}`,
  ];
}

/** Starts the upstream on a free loopback port. */
export function startBigUpstream(options: BigUpstreamOptions): Promise<BigUpstream> {
  const [middle, tail] = framePieces(options.frameBytes);
  const frame = (id: string, seq: number) => `{"id":"${id}${middle}${seq}${tail}`;
  const answer = fixedAnswer();
  const ac = new AbortController();
  const state: Omit<BigUpstream, 'url' | 'close' | 'quiet'> = {
    streams: [],
    subscribes: 0,
    requests: 0,
    slowRequests: 0,
    uploadBytes: 0,
    sockets: 0,
  };

  const stream = (socket: WebSocket, id: string, paced: boolean) => {
    const s: BigStream = { sent: 0, ended: false };
    state.streams.push(s);
    socket.addEventListener('close', () => s.ended = true);
    const step = () => {
      if (s.ended || socket.readyState !== WebSocket.OPEN) return void (s.ended = true);
      if (socket.bufferedAmount < options.frameBytes) {
        socket.send(frame(id, s.sent));
        s.sent++;
      }
      setTimeout(step, paced ? options.pacedMs ?? 50 : 2);
    };
    step();
  };

  const onSocket = (socket: WebSocket) => {
    state.sockets++;
    socket.addEventListener('message', async (event) => {
      const msg = JSON.parse(String(event.data));
      if (msg.type === 'connection_init') {
        if (options.ackDelayMs) await sleep(options.ackDelayMs);
        if (socket.readyState === WebSocket.OPEN) socket.send('{"type":"connection_ack"}');
      } else if (msg.type === 'ping') socket.send('{"type":"pong"}');
      else if (msg.type === 'subscribe') {
        state.subscribes++;
        stream(socket, msg.id, String(msg.payload.query).includes(PACED_NAME));
      }
    });
  };

  return new Promise((resolve) => {
    const server = Deno.serve({
      hostname: '127.0.0.1',
      port: 0,
      signal: ac.signal,
      onListen: ({ port }) =>
        resolve(Object.assign(state, {
          url: `http://127.0.0.1:${port}`,
          quiet() {
            for (const s of state.streams) s.ended = true;
          },
          async close() {
            for (const s of state.streams) s.ended = true;
            ac.abort();
            await server.finished;
          },
        })),
    }, async (request) => {
      if (request.headers.get('upgrade')?.toLowerCase() === 'websocket') {
        const { socket, response } = Deno.upgradeWebSocket(request, {
          protocol: 'graphql-transport-ws',
        });
        onSocket(socket);
        return response;
      }
      state.requests++;
      if (options.slowUrl?.test(request.url)) state.slowRequests++;
      if (request.body && new URL(request.url).pathname.startsWith('/api/')) {
        for await (const chunk of request.body) {
          state.uploadBytes += chunk.byteLength;
          if (options.uploadReadDelayMs) await sleep(options.uploadReadDelayMs);
        }
      } else await request.arrayBuffer();
      if (options.httpDelayMs && options.slowUrl?.test(request.url)) {
        await sleep(options.httpDelayMs);
      }
      return new Response(answer, { headers: { 'content-type': 'application/json' } });
    });
  });
}
