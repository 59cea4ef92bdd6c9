/**
 * The floor of the `targets` scenario on Node: a do-nothing HTTP proxy, node:http in front of an
 * undici Agent (the transport the Node host uses). Every request is read whole, forwarded to
 * UPSTREAM (same path and query, same method) with `authorization: Bearer <TOKEN>` injected, and
 * the upstream's status, content-type and body are answered with a content-length. No check, no
 * rebuild, no deadline. Not a product piece; the bench only. Plain JavaScript so that Node 20
 * runs it as it is (undici resolves from the root's node_modules).
 *
 * Run as its own process: `node scripts/bench/floors/null_proxy_node.mjs` with UPSTREAM
 * (http://host:port), TOKEN, HOST (127.0.0.1) and PORT (0); prints
 * `null proxy listening on <url>`. Exits on SIGTERM.
 */
import { createServer } from 'node:http';
import process from 'node:process';
import { Buffer } from 'node:buffer';
import { Agent } from 'undici';

const upstream = new URL(process.env.UPSTREAM ?? '');
const authorization = `Bearer ${process.env.TOKEN ?? ''}`;
const agent = new Agent();

/** Forwards one request whose body was read whole; answers 502 when the upstream fails. */
async function forward(request, response, body) {
  try {
    const answer = await agent.request({
      origin: upstream.origin,
      path: request.url,
      method: request.method,
      headers: {
        authorization,
        'content-type': request.headers['content-type'] ?? 'application/json',
      },
      body: body.length > 0 ? body : null,
    });
    const bytes = Buffer.from(await answer.body.arrayBuffer());
    response.writeHead(answer.statusCode, {
      'content-type': answer.headers['content-type'] ?? 'application/json',
      'content-length': bytes.length,
    });
    response.end(bytes);
  } catch {
    response.writeHead(502).end();
  }
}

const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => forward(request, response, Buffer.concat(chunks)));
});
server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
  const { address, port } = server.address();
  console.log(`null proxy listening on http://${address}:${port}`);
});
process.on('SIGTERM', () => process.exit(0));
