/**
 * The master token never leaves in an answer (SPEC "What the service does" 1; docs/operations.md
 * "The master token in answers"), on both hosts: an upstream that echoes the authorization it
 * received ("Token rejected: Bearer <token>"), as it is and JSON-escaped, in its body and its
 * content-type, on the GraphQL POST and on an upload, whole, streamed with the token cut across two
 * chunks, and gzip-compressed. The browser gets everything else of the answer as it was sent.
 * On the socket: a frame and a close reason echoing the relay's init (the relay's own cases:
 * tests/relay/fixture_hosts/upstream_test.ts). A copy cut short (half the token or more) by an
 * answer that ends inside it, or by a close reason cut at 123 bytes, is replaced too.
 */
import assert from 'node:assert/strict';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { fixedAnswer } from '../../scripts/bench/fixed_upstream.ts';
import { assertSecurityHeaders, postGraphql } from '../helpers/assertions.ts';
import { type Gateway, HOSTS, startGateway } from '../helpers/gateway.ts';
import { browser } from '../relay/ws_browser.ts';
import { serveLoopback } from '../helpers/loopback_server.ts';

/** A token with a '/', so a JSON encoder that writes '\/' gives a second form. */
const TOKEN = 'tok/EN+4f9c2a71d3b8e605==';
const BEARER = `Bearer ${TOKEN}`;
const BOT_NAME = 'query BotName($botID: BotID!) { bot(id: $botID) { id name } }';
const BOOKINGS = 'subscription S($botID: BotID!) { bookingAdded(botID: $botID) { id } }';

/** How the upstream answers the next request: whole, cut after `cut` bytes, or gzip-compressed. */
type Shape = { kind: 'whole' } | { kind: 'split'; cut: number } | { kind: 'gzip' };

/** The echoing upstream and what it saw. */
interface EchoUpstream {
  /** The authToken of each socket's connection_init (the relay's own). */
  socketTokens: string[];
  url: string;
  shape: Shape;
  /** Per answered request: the authorization received, and whether the answer was compressed. */
  seen: { authorization: string | null; gzipped: boolean }[];
  /**
   * When set, the upstream cuts its echoes inside the token, after this many of its characters:
   * the answer body ends there, and the close reason is padded so the 123 bytes end there.
   */
  cutAfter: number | null;
  close(): Promise<void>;
}

/** The answer text echoing `authorization` as is and as '/'-escaping JSON encoders write it. */
function echoText(authorization: string): string {
  const escaped = JSON.stringify(authorization).replaceAll('/', '\\/');
  return `{"data":{"bot":{"id":"${WORLD_IDS.bot1}","name":"Bench bot"}},` +
    `"errors":[{"message":"Token rejected: ${authorization}","extensions":{"seen":${escaped}}}],` +
    `"tail":"${'x'.repeat(64)}"}`;
}

/** An answer that ends `kept` characters into the token: an upstream that stopped there. */
function cutEcho(authorization: string, kept: number): string {
  return `{"errors":[{"message":"Token rejected: ${
    authorization.slice(0, 'Bearer '.length + kept)
  }`;
}

/** A close reason of 123 bytes (the most a frame carries) ending `kept` characters into the token. */
function cutReason(authorization: string, kept: number): string {
  const tail = ` ${authorization.slice(0, 'Bearer '.length + kept)}`;
  return 'x'.repeat(123 - tail.length) + tail;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A stream of `bytes` cut after `cut` bytes, the second part 40 ms after the first. */
function splitStream(bytes: Uint8Array, cut: number): ReadableStream<Uint8Array> {
  return new ReadableStream({
    async start(controller) {
      controller.enqueue(bytes.slice(0, cut));
      await sleep(40);
      controller.enqueue(bytes.slice(cut));
      controller.close();
    },
  });
}

function gzipped(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new CompressionStream('gzip'),
  );
}

/**
 * Answers the bot fence's question as the bench's fixed upstream does (bot1 is the account's),
 * and every other request 401 with {@link echoText} of the authorization it received, in the
 * body, the content-type and a header of its own, in the shape set last.
 */
async function startEchoUpstream(): Promise<EchoUpstream> {
  const state: EchoUpstream = {
    url: '',
    shape: { kind: 'whole' },
    seen: [],
    socketTokens: [],
    cutAfter: null,
    close: () => server.close(),
  };
  const server = await serveLoopback(async (request) => {
    if (request.headers.get('upgrade') === 'websocket') return echoSocket(request, state);
    await request.arrayBuffer();
    if (new URL(request.url).search === '?op=SvcWorkspaceBots') {
      return new Response(fixedAnswer(), { headers: { 'content-type': 'application/json' } });
    }
    const authorization = request.headers.get('authorization');
    const text = state.cutAfter === null
      ? echoText(authorization ?? '')
      : cutEcho(authorization ?? '', state.cutAfter);
    const bytes = new TextEncoder().encode(text);
    const headers: Record<string, string> = {
      'content-type': `application/json; charset=utf-8; x-echo="${authorization}"`,
      'x-echo-authorization': authorization ?? '',
    };
    const shape = state.shape;
    const accepts = /gzip/.test(request.headers.get('accept-encoding') ?? '');
    const gzip = shape.kind === 'gzip' && accepts;
    state.seen.push({ authorization, gzipped: gzip });
    if (gzip) headers['content-encoding'] = 'gzip';
    const body = gzip
      ? gzipped(bytes)
      : shape.kind === 'split'
      ? splitStream(bytes, shape.cut)
      : bytes;
    return new Response(body, { status: 401, headers });
  });
  state.url = server.url;
  return state;
}

/**
 * A graphql-transport-ws upstream that acknowledges, answers a subscribe with one `next` echoing
 * the init's authToken, then closes 4321 with it in the reason.
 */
function echoSocket(request: Request, state: EchoUpstream): Response {
  const { socket, response } = Deno.upgradeWebSocket(request, { protocol: 'graphql-transport-ws' });
  let token = '';
  socket.onmessage = (event) => {
    const frame = JSON.parse(String(event.data));
    if (frame.type === 'connection_init') {
      token = String(frame.payload?.authToken);
      state.socketTokens.push(token);
      socket.send(JSON.stringify({ type: 'connection_ack' }));
    } else if (frame.type === 'subscribe') {
      const data = { bookingAdded: { id: `Token rejected: ${token}` } };
      socket.send(JSON.stringify({ id: frame.id, type: 'next', payload: { data } }));
      const reason = state.cutAfter === null
        ? `rejected ${token}`
        : cutReason(token, state.cutAfter);
      setTimeout(() => socket.close(4321, reason), 50);
    }
  };
  return response;
}

/** The browser's view: nothing of the token in the status, any header or the body. */
function assertNoToken(res: Response, body: string): void {
  const forms = [TOKEN, TOKEN.replaceAll('/', '\\/')];
  for (const form of forms) {
    assert.ok(!String(res.status).includes(form));
    for (const [name, value] of res.headers) {
      assert.ok(!`${name}: ${value}`.includes(form), `header ${name}: ${value}`);
    }
    assert.ok(!body.includes(form), body);
  }
}

/** What the browser must get: the echo with every form of the token replaced, nothing else. */
const EXPECTED = JSON.parse(echoText('Bearer [redacted]'));

async function withEcho(
  kind: (typeof HOSTS)[number],
  body: (upstream: EchoUpstream, gateway: Gateway) => Promise<void>,
): Promise<void> {
  const upstream = await startEchoUpstream();
  let gateway: Gateway | null = null;
  try {
    gateway = await startGateway(kind, {}, { SVC_TOKEN: TOKEN, SVC_API_BASE: upstream.url });
    await body(upstream, gateway);
  } finally {
    await gateway?.stop();
    await upstream.close();
  }
}

function upload(url: string): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(100).fill(65)], { type: 'image/png' }), 'a.png');
  const search = `?fileType=Image&botID=${WORLD_IDS.bot1}`;
  return fetch(`${url}/svc/api/filestorage/upload/bot${search}`, { method: 'POST', body: form });
}

/** The shapes each route is asked in: whole, gzip, and cut at 1, inside the token and before its last byte. */
function shapes(): Shape[] {
  const at = echoText(BEARER).indexOf(TOKEN);
  const cuts = [1, at, at + 1, at + 12, at + TOKEN.length - 1, at + TOKEN.length];
  return [
    { kind: 'whole' },
    { kind: 'gzip' },
    ...cuts.map((cut) => ({ kind: 'split', cut }) as Shape),
  ];
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] a GraphQL answer echoing the token reaches the browser without it`, async () => {
    await withEcho(kind, async (upstream, gateway) => {
      for (const shape of shapes()) {
        upstream.shape = shape;
        const res = await postGraphql(gateway.url, {
          query: BOT_NAME,
          variables: { botID: WORLD_IDS.bot1 },
        });
        const text = await res.text();
        const what = JSON.stringify(shape);
        assert.equal(upstream.seen.at(-1)?.authorization, BEARER, what);
        assert.equal(res.status, 401, `${what}: ${text}`);
        assertNoToken(res, text);
        assert.deepEqual(JSON.parse(text), EXPECTED, what);
        assert.equal(
          res.headers.get('content-type'),
          'application/json; charset=utf-8; x-echo="Bearer [redacted]"',
        );
        assert.equal(res.headers.get('x-echo-authorization'), null);
        assertSecurityHeaders(res);
      }
    });
  });

  Deno.test(`[${kind}] an upload's answer echoing the token is piped without it, however it is cut`, async () => {
    await withEcho(kind, async (upstream, gateway) => {
      for (const shape of shapes()) {
        upstream.shape = shape;
        const res = await upload(gateway.url);
        const text = await res.text();
        const what = JSON.stringify(shape);
        assert.equal(upstream.seen.at(-1)?.authorization, BEARER, what);
        if (shape.kind === 'gzip') assert.ok(upstream.seen.at(-1)?.gzipped, 'gzip was asked for');
        assert.equal(res.status, 401, `${what}: ${text}`);
        assertNoToken(res, text);
        assert.deepEqual(JSON.parse(text), EXPECTED, what);
        assert.equal(
          res.headers.get('content-type'),
          'application/json; charset=utf-8; x-echo="Bearer [redacted]"',
        );
        assertSecurityHeaders(res);
      }
    });
  });

  Deno.test(`[${kind}] a socket frame and a close reason echoing the token reach the browser without it`, async () => {
    await withEcho(kind, async (upstream, gateway) => {
      const c = await browser(`${gateway.url.replace('http', 'ws')}/svc/graphql`);
      c.send({ type: 'connection_init' });
      c.send({
        id: '1',
        type: 'subscribe',
        payload: {
          query: BOOKINGS,
          variables: { botID: WORLD_IDS.bot1 },
        },
      });
      const closed = await c.closed;
      assert.deepEqual(upstream.socketTokens, [BEARER]);
      assert.deepEqual(closed, { code: 4321, reason: 'rejected Bearer [redacted]' });
      assert.deepEqual(c.frames, [
        { type: 'connection_ack' },
        {
          id: '1',
          type: 'next',
          payload: { data: { bookingAdded: { id: 'Token rejected: Bearer [redacted]' } } },
        },
      ]);
    });
  });
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] a copy cut short at the end of an answer or a close reason is replaced`, async () => {
    await withEcho(kind, async (upstream, gateway) => {
      // half the token is the least replaced; one character less is left
      for (const kept of [13, TOKEN.length - 1]) {
        upstream.cutAfter = kept;
        for (const shape of [{ kind: 'whole' }, { kind: 'split', cut: 45 }] as Shape[]) {
          upstream.shape = shape;
          const what = `${kept} kept, ${JSON.stringify(shape)}`;
          const posted = await postGraphql(gateway.url, {
            query: BOT_NAME,
            variables: { botID: WORLD_IDS.bot1 },
          });
          const uploaded = await upload(gateway.url);
          for (const res of [posted, uploaded]) {
            const text = await res.text();
            assert.equal(res.status, 401, what);
            assertNoToken(res, text);
            assert.equal(text, '{"errors":[{"message":"Token rejected: Bearer [redacted]', what);
          }
        }
        const c = await browser(`${gateway.url.replace('http', 'ws')}/svc/graphql`);
        c.send({ type: 'connection_init' });
        c.send({
          id: '1',
          type: 'subscribe',
          payload: { query: BOOKINGS, variables: { botID: WORLD_IDS.bot1 } },
        });
        const closed = await c.closed;
        assert.equal(closed.code, 4321);
        assert.match(closed.reason, /^x+ Bearer \[redacted\]$/, `${kept} kept`);
      }
      assert.equal(upstream.seen.length, 8, "each answer was the upstream's");
      assert.deepEqual(upstream.socketTokens, [BEARER, BEARER]);
      // one character under half: not replaced (it is not the token; the rule's floor)
      upstream.cutAfter = 12;
      upstream.shape = { kind: 'whole' };
      const res = await upload(gateway.url);
      assert.equal(await res.text(), cutEcho(BEARER, 12));
    });
  });
}
