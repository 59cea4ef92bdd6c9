/**
 * The oversize rule of SPEC "Size and capacity": past the ceiling the rest of
 * the body is dropped, the 413 goes out with connection: close, and a caller
 * that keeps sending has its connection ended 250 ms later. Both hosts run node:http, own
 * their sockets and do all of it; Deno.serve (the handler of `deno task serve:parallel`) gives a
 * handler no socket to destroy, so there the 413 goes out with connection: close at once
 * (tests/http/graphql_refusals_test.ts) and the connection is left to Deno. Every one says
 * `connection: close` once, also to a request that itself carries `Connection: close`.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { Buffer } from 'node:buffer';
import { assertNothingReached } from '../helpers/assertions.ts';
import { DENO_SERVE, HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';

/**
 * The 64 KiB writes of a caller that keeps sending: 4 GiB, far more than loopback carries in the
 * 250 ms the gateway lets such a caller go on (the rest is read and dropped meanwhile).
 */
const WRITES_MAX = 65_536;

for (const kind of HOSTS) {
  Deno.test(`[${kind}] a caller that keeps sending past a 413 loses the connection`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      await assertNothingReached(sandbox, async () => {
        const { hostname, port } = new URL(gateway.url);
        const conn = await Deno.connect({ hostname, port: Number(port) });
        const head =
          `POST /svc/graphql HTTP/1.1\r\nhost: ${hostname}:${port}\r\ncontent-type: application/json\r\n` +
          `content-length: ${WRITES_MAX * 64 * 1024}\r\n\r\n`;
        await conn.write(new TextEncoder().encode(head));
        const chunk = new Uint8Array(64 * 1024).fill(32);
        const reading = (async () => {
          const buf = new Uint8Array(4096);
          let text = '';
          while (true) {
            const n = await conn.read(buf).catch(() => null);
            if (n === null) return text;
            text += new TextDecoder().decode(buf.subarray(0, n));
          }
        })();
        let writes = 0;
        // keep sending (bounded) until the gateway ends the connection
        for (; writes < WRITES_MAX; writes++) {
          const ok = await conn.write(chunk).then(() => true, () => false);
          if (!ok) break;
        }
        const text = await reading;
        try {
          conn.close();
        } catch { /* already closed */ }
        assert.match(text, /^HTTP\/1\.1 413/);
        assert.match(text.toLowerCase(), /connection: close/);
        assert.ok(writes < WRITES_MAX, 'the connection was ended while the caller kept sending');
      });
    });
  });
}

/**
 * Writes the head, then a whole body one byte past the ceiling, on a half-open raw socket (its
 * side ends once the gateway's has), and reads until the connection is gone. Resolves with what
 * was read, or '' when the connection was reset before the answer could be read.
 */
function wholeBodySent(url: string, version: string): Promise<string> {
  const { hostname, port } = new URL(url);
  const size = 2 * 1024 * 1024 + 1;
  return new Promise((resolve) => {
    const socket = net.connect({ port: Number(port), host: hostname, allowHalfOpen: true });
    let text = '';
    socket.on('connect', () => {
      socket.write(
        `POST /svc/graphql HTTP/${version}\r\nhost: ${hostname}:${port}\r\n` +
          `content-type: application/json\r\ncontent-length: ${size}\r\n\r\n`,
      );
      socket.write(Buffer.alloc(size, 32));
    });
    socket.on('data', (data: Buffer) => text += data.toString('latin1'));
    socket.on('end', () => socket.end());
    socket.on('error', () => {/* a reset: 'close' follows */});
    socket.on('close', () => resolve(text));
  });
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] a caller that sent its whole oversize body reads the 413 before the end`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      await assertNothingReached(sandbox, async () => {
        // a connection destroyed with the caller's bytes unread is reset, and the caller's
        // kernel drops the 413 it had not yet read: seen about one time in three before the
        // gateway lingered (docs/operations.md "Faults")
        for (let round = 0; round < 8; round++) {
          for (const version of ['1.0', '1.1']) {
            const text = await wholeBodySent(gateway.url, version);
            assert.match(text, /^HTTP\/1\.1 413 /, `HTTP/${version}, round ${round}: ${text}`);
            assert.match(text, /"RequestTooLarge"/);
          }
        }
      });
    });
  });
}

/** Sends `head` and `body` on a raw socket and reads until the gateway ends the connection. */
async function rawExchange(url: string, head: string, body: Uint8Array): Promise<string> {
  const { hostname, port } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  const reading = (async () => {
    const buf = new Uint8Array(4096);
    let text = '';
    while (true) {
      const n = await conn.read(buf).catch(() => null);
      if (n === null) return text;
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
  })();
  await conn.write(new TextEncoder().encode(head));
  for (let at = 0; at < body.byteLength; at += 64 * 1024) {
    const ok = await conn.write(body.subarray(at, at + 64 * 1024)).then(() => true, () => false);
    if (!ok) break;
  }
  const text = await reading;
  try {
    conn.close();
  } catch { /* already closed */ }
  return text;
}

/**
 * The requests of the double-header defect, each with the `connection` lines its 413 must carry.
 * Deno.serve writes its own `connection: close` for an HTTP/1.1 request that asks to close, and
 * none for HTTP/1.0 (which closes anyway); a handler cannot tell the two versions apart (same
 * Request), so on Deno.serve's handler an HTTP/1.0 request that says `Connection: close` gets its
 * 413 with no connection line, and the connection still ends.
 */
const CLOSING_REQUESTS = [
  { version: '1.1', connection: 'Connection: close', deno: 1 }, // Node's http client, no agent
  { version: '1.1', connection: 'connection: Close, TE', deno: 1 },
  { version: '1.0', connection: '', deno: 1 },
  { version: '1.0', connection: 'Connection: close', deno: 0 },
];

for (const kind of [...HOSTS, DENO_SERVE]) {
  Deno.test(`[${kind}] a 413 to a request carrying connection: close says it once`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      await assertNothingReached(sandbox, async () => {
        for (const { version, connection, deno } of CLOSING_REQUESTS) {
          const size = 2 * 1024 * 1024 + 64 * 1024;
          const head =
            `POST /svc/graphql HTTP/${version}\r\nHost: ${new URL(gateway.url).host}\r\n` +
            `Content-Type: application/json\r\n${connection ? `${connection}\r\n` : ''}` +
            `Content-Length: ${size}\r\n\r\n`;
          // rawExchange returns once the gateway has ended the connection
          const text = await rawExchange(gateway.url, head, new Uint8Array(size).fill(32));
          const [headers] = text.split('\r\n\r\n');
          assert.match(headers, /^HTTP\/1\.[01] 413/, headers);
          assert.match(text, /"RequestTooLarge"/);
          const lines = headers.toLowerCase().split('\r\n');
          const expected = kind !== DENO_SERVE || deno === 1 ? ['connection: close'] : [];
          assert.deepEqual(
            lines.filter((l) => l.startsWith('connection:')),
            expected,
            `HTTP/${version} ${connection}: ${headers}`,
          );
        }
      });
    });
  });
}
