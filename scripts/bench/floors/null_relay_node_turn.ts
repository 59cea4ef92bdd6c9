/**
 * A relay floor with the Node host's legs and its one write per turn, for the Deno runtime
 * (compared in scripts/bench/deno_browser_legs.ts; docs/benchmarks.md "The Deno host's browser
 * leg"): the browser's socket from a `ws` server on node:http, the upstream leg on the `ws`
 * client, as null_relay_node.mjs, except that the text frames sent toward the browser in one turn
 * of the event loop go to its TCP socket in one write of one buffer (src/ws/turn_batch.ts, as the
 * Node host's src/ws/ws_socket.ts does). The upstream's bytes are decoded to text once (the batch
 * frames text). MODE `pass` or `plain` as the other floors; flow control as the gateway's
 * (src/ws/flow.ts, default marks), with the batch's bytes counted as unsent.
 *
 * Run as its own process: `deno run --allow-net --allow-env --allow-read
 * scripts/bench/floors/null_relay_node_turn.ts` with UPSTREAM, MODE, HOST (127.0.0.1) and PORT
 * (0); prints `null relay listening on <url>`. Not a product piece; the bench only.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { type BatchSink, TurnBatch } from '../../../src/ws/turn_batch.ts';

const PROTOCOL = 'graphql-transport-ws';
const HIGH = 512 * 1024;
const LOW = 128 * 1024;
const decoder = new TextDecoder();
const upstreamUrl = Deno.env.get('UPSTREAM') ?? '';
const plain = Deno.env.get('MODE') === 'plain';

/** What goes on from one frame's text: as it came, or re-serialised. */
function onward(text: string): string {
  return plain ? JSON.stringify(JSON.parse(text)) : text;
}

/** Pauses `source` while `unsent()` is more than HIGH bytes, until it is back at LOW. */
function flow(source: WebSocket, sink: WebSocket, unsent: () => number): () => void {
  let polling = false;
  const poll = (ms: number) => {
    if (unsent() <= LOW || sink.readyState !== WebSocket.OPEN) {
      polling = false;
      if (source.isPaused) source.resume();
      return;
    }
    setTimeout(() => poll(Math.min(ms * 2, 20)), ms);
  };
  return () => {
    if (polling || unsent() <= HIGH) return;
    polling = true;
    source.pause();
    setTimeout(() => poll(2), 1);
  };
}

/** Joins a browser socket to a new upstream socket (closing either closes the other). */
function join(browser: WebSocket): void {
  const upstream = new WebSocket(upstreamUrl, PROTOCOL, { perMessageDeflate: false });
  const sink = (browser as unknown as { _socket: BatchSink })._socket;
  const batch = new TurnBatch(sink, () => browser.readyState === WebSocket.OPEN);
  const waiting: string[] = [];
  const written = flow(upstream, browser, () => browser.bufferedAmount + batch.bytes);
  const close = () => {
    batch.flush();
    browser.close();
    upstream.close();
  };
  upstream.on('open', () => {
    for (const frame of waiting.splice(0)) upstream.send(frame);
  });
  browser.on('message', (data: Uint8Array) => {
    try {
      const frame = onward(decoder.decode(data));
      if (upstream.readyState === WebSocket.OPEN) upstream.send(frame);
      else waiting.push(frame);
    } catch {
      close();
    }
  });
  upstream.on('message', (data: Uint8Array) => {
    try {
      if (browser.readyState !== WebSocket.OPEN) return;
      batch.add(onward(decoder.decode(data)));
      written();
    } catch {
      close();
    }
  });
  browser.on('close', () => upstream.close());
  upstream.on('close', close);
  upstream.on('error', () => browser.close());
  browser.on('error', () => upstream.close());
}

if (import.meta.main) {
  const server = createServer((_request, response) => response.writeHead(404).end());
  new WebSocketServer({ server, handleProtocols: () => PROTOCOL, perMessageDeflate: false }).on(
    'connection',
    join,
  );
  server.listen(Number(Deno.env.get('PORT') ?? 0), Deno.env.get('HOST') ?? '127.0.0.1', () => {
    const { address, port } = server.address() as AddressInfo;
    console.log(`null relay listening on http://${address}:${port}`);
  });
  Deno.addSignalListener('SIGTERM', () => Deno.exit(0));
}
