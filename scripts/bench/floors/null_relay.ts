/**
 * The floors of the `relay` scenario on the Deno runtime: do-nothing WebSocket relays with the
 * Deno host's two legs: the browser's socket from `Deno.upgradeWebSocket`, the upstream leg on
 * the `ws` client (pausable, as the host's: src/ws/ws_socket.ts). Every upgrade on any path opens
 * a socket to UPSTREAM (ws://host:port/path) with subprotocol graphql-transport-ws; frames the
 * browser sends before the upstream leg is open wait in order. MODE says what happens to each
 * frame on its way:
 * - `pass` (default): the text is passed across as it came (the upstream's bytes decoded once,
 *   as Deno's socket sends text);
 * - `plain`: each frame is parsed and re-serialised the plain way (`JSON.stringify(JSON.parse)`)
 *   and nothing else (a frame that is not JSON closes both legs).
 * LEG says which upstream leg: `ws` (default) the `ws` client, `stream` Deno's `WebSocketStream`
 * (run with --unstable-net), paused by no longer reading its readable (Deno then stops reading the
 * TCP socket; docs/benchmarks.md "The Deno host's upstream leg").
 * Flow control as the gateway's (src/ws/flow.ts, default marks): past 512 KiB unsent toward the
 * browser the upstream leg is paused, read back after 1 ms then twice as late (at most 20 ms),
 * resumed at 128 KiB. No check, no token injection (the client sends its own in
 * connection_init). Not a product piece; the bench only.
 *
 * Run as its own process: `deno run --allow-net --allow-env scripts/bench/floors/null_relay.ts`
 * with UPSTREAM, MODE, LEG, HOST (127.0.0.1) and PORT (0); prints `null relay listening on <url>`.
 */
import { WebSocket as WsClient } from 'ws';

const PROTOCOL = 'graphql-transport-ws';
const HIGH = 512 * 1024;
const LOW = 128 * 1024;
const decoder = new TextDecoder();

/** What goes on from one frame's text: as it came, or re-serialised. */
function onward(text: string, plain: boolean): string {
  return plain ? JSON.stringify(JSON.parse(text)) : text;
}

/** Pauses `source` while `sink` holds more than HIGH unsent bytes, until it is back at LOW. */
function flow(source: WsClient, sink: WebSocket): () => void {
  let polling = false;
  const poll = (ms: number) => {
    if (sink.bufferedAmount <= LOW || sink.readyState !== WebSocket.OPEN) {
      polling = false;
      if (source.isPaused) source.resume();
      return;
    }
    setTimeout(() => poll(Math.min(ms * 2, 20)), ms);
  };
  return () => {
    if (polling || sink.bufferedAmount <= HIGH) return;
    polling = true;
    source.pause();
    setTimeout(() => poll(2), 1);
  };
}

/** Joins a browser socket to a new `ws` upstream socket (closing either closes the other). */
function join(browser: WebSocket, upstreamUrl: string, plain: boolean): void {
  const upstream = new WsClient(upstreamUrl, PROTOCOL, { perMessageDeflate: false });
  const waiting: string[] = [];
  const written = flow(upstream, browser);
  const close = () => {
    if (browser.readyState === WebSocket.OPEN) browser.close();
    upstream.close();
  };
  upstream.on('open', () => {
    for (const frame of waiting.splice(0)) upstream.send(frame);
  });
  browser.onmessage = (event) => {
    try {
      const frame = onward(String(event.data), plain);
      if (upstream.readyState === WsClient.OPEN) upstream.send(frame);
      else waiting.push(frame);
    } catch {
      close();
    }
  };
  upstream.on('message', (data: Uint8Array) => {
    try {
      if (browser.readyState !== WebSocket.OPEN) return;
      browser.send(onward(decoder.decode(data), plain));
      written();
    } catch {
      close();
    }
  });
  upstream.on('error', () => close());
  browser.onclose = () => upstream.close();
  upstream.on('close', () => {
    if (browser.readyState === WebSocket.OPEN) browser.close();
  });
}

/** The parts of Deno's unstable `WebSocketStream` the floor uses. */
interface StreamSocket {
  opened: Promise<{
    readable: ReadableStream<string | Uint8Array>;
    writable: WritableStream<string>;
  }>;
  closed: Promise<unknown>;
  close(info?: { closeCode?: number; reason?: string }): void;
}
type StreamCtor = new (url: string, options: { protocols: string[] }) => StreamSocket;

/** Joins a browser socket to a new `WebSocketStream` upstream (closing either closes the other). */
function joinStream(browser: WebSocket, upstreamUrl: string, plain: boolean): void {
  const Ctor = (globalThis as unknown as { WebSocketStream: StreamCtor }).WebSocketStream;
  const upstream = new Ctor(upstreamUrl, { protocols: [PROTOCOL] });
  const waiting: string[] = [];
  let writer: WritableStreamDefaultWriter<string> | null = null;
  let paused: PromiseWithResolvers<void> | null = null;
  let polling = false;
  const close = () => {
    if (browser.readyState === WebSocket.OPEN) browser.close();
    try {
      upstream.close();
    } catch { /* already closed */ }
  };
  const poll = (ms: number) => {
    if (browser.bufferedAmount <= LOW || browser.readyState !== WebSocket.OPEN) {
      polling = false;
      paused?.resolve();
      paused = null;
      return;
    }
    setTimeout(() => poll(Math.min(ms * 2, 20)), ms);
  };
  const send = (frame: string) => writer!.write(frame).catch(close);
  browser.onmessage = (event) => {
    try {
      const frame = onward(String(event.data), plain);
      if (writer) send(frame);
      else waiting.push(frame);
    } catch {
      close();
    }
  };
  browser.onclose = () => close();
  upstream.closed.then(close, close);
  upstream.opened.then(async ({ readable, writable }) => {
    writer = writable.getWriter();
    for (const frame of waiting.splice(0)) send(frame);
    const reader = readable.getReader();
    while (true) {
      if (paused) await paused.promise;
      const { value, done } = await reader.read();
      if (done || browser.readyState !== WebSocket.OPEN) break;
      const text = typeof value === 'string' ? value : decoder.decode(value);
      browser.send(onward(text, plain));
      if (!polling && browser.bufferedAmount > HIGH) {
        polling = true;
        paused = Promise.withResolvers();
        setTimeout(() => poll(2), 1);
      }
    }
  }).catch(close);
}

if (import.meta.main) {
  const upstreamUrl = Deno.env.get('UPSTREAM')!;
  const plain = Deno.env.get('MODE') === 'plain';
  const joinLeg = Deno.env.get('LEG') === 'stream' ? joinStream : join;
  Deno.serve({
    hostname: Deno.env.get('HOST') ?? '127.0.0.1',
    port: Number(Deno.env.get('PORT') ?? '0'),
    onListen: ({ hostname, port }) =>
      console.log(`null relay listening on http://${hostname}:${port}`),
  }, (request) => {
    const { socket, response } = Deno.upgradeWebSocket(request, { protocol: PROTOCOL });
    joinLeg(socket, upstreamUrl, plain);
    return response;
  });
  Deno.addSignalListener('SIGTERM', () => Deno.exit(0));
}
