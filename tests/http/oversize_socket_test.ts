/**
 * The oversize rule of SPEC "Size and capacity": past the ceiling the rest of
 * the body is dropped, the 413 goes out with connection: close, and a caller
 * that keeps sending has its connection ended 250 ms later. The Node host
 * owns its sockets and does all of it; Deno.serve gives a handler no socket to
 * destroy, so the Deno host answers the 413 with connection: close at once
 * (tests/http/graphql_refusals_test.ts) and leaves the connection to Deno.
 */
import assert from 'node:assert/strict';
import { assertNothingReached } from '../helpers/assertions.ts';
import { withGateway } from '../helpers/setup.ts';

for (const kind of ['node'] as const) {
  Deno.test(`[${kind}] a caller that keeps sending past a 413 loses the connection`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      await assertNothingReached(sandbox, async () => {
        const { hostname, port } = new URL(gateway.url);
        const conn = await Deno.connect({ hostname, port: Number(port) });
        const head =
          `POST /svc/graphql HTTP/1.1\r\nhost: ${hostname}:${port}\r\ncontent-type: application/json\r\n` +
          `content-length: ${64 * 1024 * 1024}\r\n\r\n`;
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
        for (; writes < 1024; writes++) {
          const ok = await conn.write(chunk).then(() => true, () => false);
          if (!ok) break;
        }
        const text = await reading;
        try {
          conn.close();
        } catch { /* already closed */ }
        assert.match(text, /^HTTP\/1\.1 413/);
        assert.match(text.toLowerCase(), /connection: close/);
        assert.ok(writes < 1024, 'the connection was ended while the caller kept sending');
      });
    });
  });
}
