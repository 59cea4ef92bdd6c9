/**
 * A relay floor with a host's own legs and its one write per turn, for both runtimes (the relay
 * scenario's floors: floors/mod.ts `startHostLegsRelay`; docs/benchmarks.md "The Deno host's
 * browser leg"): the browser's socket from a `ws` server on node:http, the upstream leg on the
 * `ws` client, as null_relay_node.mjs, except that the text frames sent toward the browser in one
 * turn of the event loop go to its TCP socket in one write of one buffer (src/ws/turn_batch.ts, as
 * both hosts' src/ws/ws_socket.ts does). The upstream's bytes are decoded to text once (the batch
 * frames text). MODE `pass` or `plain` as the other floors; flow control as the gateway's
 * (src/ws/flow.ts, default marks), with the batch's bytes counted as unsent. Plain JavaScript so
 * that Node 20 runs it as it is.
 *
 * Run through its runtime's entry, each its own process with UPSTREAM, MODE, HOST (127.0.0.1) and
 * PORT (0), exiting on SIGTERM: `null_relay_turn.ts` on Deno (the batch from src/),
 * `null_relay_turn_node.mjs` on Node (the batch from the built npm package: `deno task build:npm`
 * first). Not a product piece; the bench only.
 */
import { createServer } from 'node:http';
import process from 'node:process';
import { WebSocket, WebSocketServer } from 'ws';

const PROTOCOL = 'graphql-transport-ws';
const HIGH = 512 * 1024;
const LOW = 128 * 1024;
const decoder = new TextDecoder();
const upstreamUrl = process.env.UPSTREAM ?? '';
const plain = process.env.MODE === 'plain';

/** What goes on from one frame's text: as it came, or re-serialised. */
function onward(text) {
  return plain ? JSON.stringify(JSON.parse(text)) : text;
}

/** Pauses `source` while `unsent()` is more than HIGH bytes, until it is back at LOW. */
function flow(source, sink, unsent) {
  let polling = false;
  const poll = (ms) => {
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

/**
 * Joins a browser socket to a new upstream socket (closing either closes the other); `TurnBatch`
 * is src/ws/turn_batch.ts's class.
 */
function join(browser, TurnBatch) {
  const upstream = new WebSocket(upstreamUrl, PROTOCOL, { perMessageDeflate: false });
  const sink = browser._socket;
  const batch = new TurnBatch(sink, browser);
  const waiting = [];
  const written = flow(upstream, browser, () => browser.bufferedAmount + batch.bytes);
  const close = () => {
    batch.flush();
    browser.close();
    upstream.close();
  };
  upstream.on('open', () => {
    for (const frame of waiting.splice(0)) upstream.send(frame);
  });
  browser.on('message', (data) => {
    try {
      const frame = onward(decoder.decode(data));
      if (upstream.readyState === WebSocket.OPEN) upstream.send(frame);
      else waiting.push(frame);
    } catch {
      close();
    }
  });
  upstream.on('message', (data) => {
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

/**
 * Serves the floor on HOST:PORT (127.0.0.1, 0) and prints `null relay listening on <url>`, with
 * `TurnBatch` the batch class (the runtime's own build of src/ws/turn_batch.ts).
 */
export function serveTurnRelay(TurnBatch) {
  const server = createServer((_request, response) => response.writeHead(404).end());
  new WebSocketServer({ server, handleProtocols: () => PROTOCOL, perMessageDeflate: false }).on(
    'connection',
    (browser) => join(browser, TurnBatch),
  );
  server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
    const { address, port } = server.address();
    console.log(`null relay listening on http://${address}:${port}`);
  });
}
