/**
 * The Node host (docs/benchmarks.md "The gateway's own cost") answers a POST to the GraphQL route
 * with a small declared body on its common path (hosts/node_http/lean.ts: no Web Request or Response),
 * and every other body (chunked, or over 64 KiB declared) through the Web Request path. One core:
 * the same request must get the same answer on both paths and on the Deno host, and the upstream
 * must receive the same thing. Each case is sent three times over raw TCP: to the Node host with a
 * content-length (lean), to the Node host chunked (Web path), and to the Deno host with a
 * content-length.
 */
import assert from 'node:assert/strict';
import { assertNothingReached, forwarded, rawRequest } from '../helpers/assertions.ts';
import { startGateway } from '../helpers/gateway.ts';
import { sandboxEnv } from '../helpers/setup.ts';
import { startSandbox } from '../../scripts/sandbox/mod.ts';

/** Headers that differ between two answers for reasons other than the answer itself. */
const INCIDENTAL = new Set([
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
]);

interface Case {
  name: string;
  headers: Record<string, string>;
  body: string;
  /** The status every path must answer. */
  status: number;
  /** Whether the request must reach the upstream. */
  reaches: boolean;
}

const CASES: Case[] = [
  {
    name: 'a query is forwarded',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'query Me { currentUser { id } }', operationName: 'Me' }),
    status: 200,
    reaches: true,
  },
  {
    name: 'a listed origin gets CORS headers',
    headers: {
      'content-type': 'application/json',
      origin: 'https://app.example.com',
    },
    body: JSON.stringify({ query: '{ currentUser { id } }' }),
    status: 200,
    reaches: true,
  },
  {
    name: 'malformed JSON is refused',
    headers: { 'content-type': 'application/json' },
    body: '{"query":',
    status: 400,
    reaches: false,
  },
  {
    name: 'a foreign origin is refused',
    headers: { 'content-type': 'application/json', origin: 'https://elsewhere.example.org' },
    body: JSON.stringify({ query: '{ currentUser { id } }' }),
    status: 403,
    reaches: false,
  },
  {
    name: 'a text/plain body is refused',
    headers: { 'content-type': 'text/plain' },
    body: '{ currentUser { id } }',
    status: 415,
    reaches: false,
  },
];

function head(url: string, headers: Record<string, string>, framing: string): string {
  const { host } = new URL(url);
  const lines = ['POST /svc/graphql HTTP/1.1', `host: ${host}`, framing];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return lines.join('\r\n');
}

function sized(url: string, c: Case) {
  const framing = `content-length: ${new TextEncoder().encode(c.body).byteLength}`;
  return rawRequest(url, head(url, c.headers, framing), c.body);
}

function chunked(url: string, c: Case) {
  const bytes = new TextEncoder().encode(c.body).byteLength;
  const body = `${bytes.toString(16)}\r\n${c.body}\r\n0\r\n\r\n`;
  return rawRequest(url, head(url, c.headers, 'transfer-encoding: chunked'), body);
}

/** Status, headers (incidental ones left out) and body of one answer. */
function essence(answer: Awaited<ReturnType<typeof rawRequest>>) {
  const headers = Object.entries(answer.headers).filter(([name]) => !INCIDENTAL.has(name));
  return { status: answer.status, headers: Object.fromEntries(headers.sort()), body: answer.body };
}

Deno.test('the Node host common path answers as its Web path and the Deno host do', async (t) => {
  const sandbox = await startSandbox();
  const env = sandboxEnv(sandbox, { ALLOWED_ORIGINS: 'https://app.example.com' });
  const node = await startGateway('node', {}, env);
  const deno = await startGateway('deno', {}, env);
  try {
    for (const c of CASES) {
      await t.step(c.name, async () => {
        sandbox.reset();
        const send = async () => {
          const lean = await sized(node.url, c);
          const web = await chunked(node.url, c);
          const denoAnswer = await sized(deno.url, c);
          return [lean, web, denoAnswer].map(essence);
        };
        const [lean, web, denoAnswer] = c.reaches
          ? await send()
          : await assertNothingReached(sandbox, send);
        assert.equal(lean.status, c.status, lean.body);
        assert.deepEqual(web, lean);
        assert.deepEqual(denoAnswer, lean);
        if (!c.reaches) return;
        const received = forwarded(sandbox).map((r) => ({
          search: r.search,
          headers: r.headers,
          body: r.bodyText,
        }));
        assert.equal(received.length, 3);
        assert.deepEqual(received[1], received[0]);
        // each runtime's HTTP client adds transport headers of its own (user-agent, accept, ...)
        const rule = ({ search, headers, body }: typeof received[0]) => ({
          search,
          body,
          type: headers['content-type'],
          authorization: headers.authorization,
        });
        assert.deepEqual(rule(received[2]), rule(received[0]));
      });
    }
  } finally {
    await node.stop();
    await deno.stop();
    await sandbox.close();
  }
});
