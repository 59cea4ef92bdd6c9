/**
 * The floors of the `relay` scenario on Node: do-nothing WebSocket relays on `ws` (what the Node
 * host uses for both legs). Every upgrade opens a socket to UPSTREAM (ws://host:port/path) with
 * subprotocol graphql-transport-ws; frames sent before the upstream leg is open wait in order.
 * MODE says what happens to each frame on its way:
 * - `pass` (default): the bytes are passed across as they came (text stays text);
 * - `plain`: each frame is parsed and re-serialised the plain way (`JSON.stringify(JSON.parse)`)
 *   and nothing else (a frame that is not JSON closes both legs).
 * Flow control as the gateway's (src/ws/flow.ts, default marks): past 512 KiB unsent toward the
 * browser the upstream leg is paused, read back after 1 ms then twice as late (at most 20 ms),
 * resumed at 128 KiB. No check, no token injection (the client sends its own in
 * connection_init). Not a product piece; the bench only. Plain JavaScript so that Node 20 runs it
 * as it is (ws resolves from the root's node_modules).
 *
 * Run as its own process: `node scripts/bench/floors/null_relay_node.mjs` with UPSTREAM, MODE,
 * HOST (127.0.0.1) and PORT (0); prints `null relay listening on <url>`. Exits on SIGTERM.
 */
import { createServer } from 'node:http';
import process from 'node:process';
import { WebSocket, WebSocketServer } from 'ws';

const PROTOCOL = 'graphql-transport-ws';
const upstreamUrl = process.env.UPSTREAM ?? '';
const plain = process.env.MODE === 'plain';
const HIGH = 512 * 1024;
const LOW = 128 * 1024;

/** What goes on from one received message: the bytes as they came, or re-serialised text. */
function onward(data, isBinary) {
  if (!plain || isBinary) return data;
  return JSON.stringify(JSON.parse(data.toString()));
}

/** Pauses `source` while `sink` holds more than HIGH unsent bytes, until it is back at LOW. */
function flow(source, sink) {
  let polling = false;
  const poll = (ms) => {
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

/** Joins a browser socket to a new upstream socket (closing either closes the other). */
function join(browser) {
  const upstream = new WebSocket(upstreamUrl, PROTOCOL, { perMessageDeflate: false });
  const waiting = [];
  const written = flow(upstream, browser);
  const close = () => {
    browser.close();
    upstream.close();
  };
  upstream.on('open', () => {
    for (const [frame, binary] of waiting.splice(0)) upstream.send(frame, { binary });
  });
  browser.on('message', (data, isBinary) => {
    try {
      const frame = onward(data, isBinary);
      if (upstream.readyState === WebSocket.OPEN) upstream.send(frame, { binary: isBinary });
      else waiting.push([frame, isBinary]);
    } catch {
      close();
    }
  });
  upstream.on('message', (data, isBinary) => {
    try {
      browser.send(onward(data, isBinary), { binary: isBinary });
      written();
    } catch {
      close();
    }
  });
  browser.on('close', () => upstream.close());
  upstream.on('close', () => browser.close());
  upstream.on('error', () => browser.close());
  browser.on('error', () => upstream.close());
}

const server = createServer((_request, response) => response.writeHead(404).end());
new WebSocketServer({ server, handleProtocols: () => PROTOCOL, perMessageDeflate: false }).on(
  'connection',
  join,
);
server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
  const { address, port } = server.address();
  console.log(`null relay listening on http://${address}:${port}`);
});
process.on('SIGTERM', () => process.exit(0));
