/**
 * The floor of the `relay` scenario on Node: a do-nothing WebSocket relay on `ws` (what the Node
 * host uses for both legs). Every upgrade opens a socket to UPSTREAM (ws://host:port/path) with
 * subprotocol graphql-transport-ws and passes each frame across as it comes, both ways (text as
 * text); frames sent before the upstream leg is open wait in order. No parse, no check, no
 * re-serialise, no token injection. Not a product piece; the bench only. Plain JavaScript so
 * that Node 20 runs it as it is (ws resolves from the root's node_modules).
 *
 * Run as its own process: `node scripts/bench/floors/null_relay_node.mjs` with UPSTREAM, HOST
 * (127.0.0.1) and PORT (0); prints `null relay listening on <url>`. Exits on SIGTERM.
 */
import { createServer } from 'node:http';
import process from 'node:process';
import { WebSocket, WebSocketServer } from 'ws';

const PROTOCOL = 'graphql-transport-ws';
const upstreamUrl = process.env.UPSTREAM ?? '';

/** Joins a browser socket to a new upstream socket (closing either closes the other). */
function join(browser) {
  const upstream = new WebSocket(upstreamUrl, PROTOCOL);
  const waiting = [];
  upstream.on('open', () => {
    for (const frame of waiting.splice(0)) upstream.send(frame);
  });
  browser.on('message', (data, isBinary) => {
    const frame = isBinary ? data : data.toString();
    if (upstream.readyState === WebSocket.OPEN) upstream.send(frame);
    else waiting.push(frame);
  });
  upstream.on('message', (data, isBinary) => browser.send(isBinary ? data : data.toString()));
  browser.on('close', () => upstream.close());
  upstream.on('close', () => browser.close());
  upstream.on('error', () => browser.close());
}

const server = createServer((_request, response) => response.writeHead(404).end());
new WebSocketServer({ server, handleProtocols: () => PROTOCOL }).on('connection', join);
server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
  const { address, port } = server.address();
  console.log(`null relay listening on http://${address}:${port}`);
});
process.on('SIGTERM', () => process.exit(0));
