/**
 * The memory budget counts what a request will hold from its body's first byte
 * (docs/operations.md "Memory": the body's bytes, text, parsed and forwarded forms at the defaults
 * table's measured bytes per byte), on both hosts, each its own process, with a small budget:
 * - two GraphQL bodies held open mid-read (one with a content-length, one chunked) fill it:
 *   `svc_memory_held_bytes` moves by what they reserve, the next large body is answered 503
 *   ProxyBusy with retry-after (counted as `refused_request`) and nothing reaches the upstream,
 *   while a small POST still passes; once the held ones are cut off, the gauge is back at 0 and
 *   the large body passes; bodies small enough for a host to read them whole before the core sees
 *   the request are counted from their first byte the same way;
 * - the same on a JSON route (the publish queue's callback, whose body is read after its key).
 */
import assert from 'node:assert/strict';
import { type Sandbox, SANDBOX_TOKEN, startSandbox } from '../../scripts/sandbox/mod.ts';
import type { HostKind, HostProcess } from '../../scripts/host_process.ts';
import { DEFAULTS } from '../../src/config/defaults.ts';
import { assertNothingReached, assertRefusal, postGraphql } from '../helpers/assertions.ts';
import { metric, startGateway, until } from './helpers.ts';

const MIB = 1024 * 1024;
/** The budget: room for two held bodies of BODY_BYTES, not three. */
const BUDGET = 8 * MIB;
/** What a JSON body reserves a byte from its first byte (its bytes, text, forwarded form, parse). */
const PER_BYTE = DEFAULTS.memoryBodyBytesPerByte + DEFAULTS.memoryJsonPerByte +
  DEFAULTS.memoryParsedPerByte;
/** Over the 64 KiB a host reads ahead (src/http/preread.ts): the core reads these bodies. */
const BODY_BYTES = Math.floor(BUDGET / PER_BYTE / 2.2);
const SECRET = 'memory-test-publishing-secret-0123456789';
const HELD = 'svc_memory_held_bytes';
const REFUSED = 'svc_memory_actions_total{action="refused_request"}';

/** A body of exactly `bytes` bytes: `head`, padding, `tail` (a GraphQL entry by default). */
function paddedBody(
  bytes: number,
  head = '{"query":"query Q { currentUser { id } }","variables":{"pad":"',
  tail = '"}}',
): string {
  return head + 'x'.repeat(bytes - head.length - tail.length) + tail;
}

/** An HTTP request sent over TCP whose body stops halfway (the connection held open). */
async function heldBody(
  url: string,
  path: string,
  headers: Record<string, string>,
  chunked: boolean,
  bytes = BODY_BYTES,
): Promise<Deno.Conn> {
  const { hostname, port } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  const body = paddedBody(bytes);
  const sent = body.slice(0, body.length / 2);
  const lines = [
    `POST ${path} HTTP/1.1`,
    `host: ${hostname}:${port}`,
    'content-type: application/json',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    chunked ? 'transfer-encoding: chunked' : `content-length: ${body.length}`,
  ];
  const framed = chunked ? `${sent.length.toString(16)}\r\n${sent}\r\n` : sent;
  await conn.write(new TextEncoder().encode(`${lines.join('\r\n')}\r\n\r\n${framed}`));
  return conn;
}

/** Holds two bodies (declared, chunked), checks the refusal, cuts them off, checks the release. */
async function fillAndRelease(
  gateway: HostProcess,
  sandbox: Sandbox,
  path: string,
  headers: Record<string, string>,
  send: (body: string) => Promise<Response>,
  passes: (res: Response) => Promise<void>,
): Promise<void> {
  assert.equal(await metric(gateway, HELD), 0);
  const refusedBefore = await metric(gateway, REFUSED);
  const held = [
    await heldBody(gateway.url, path, headers, false),
    await heldBody(gateway.url, path, headers, true),
  ];
  try {
    // the declared body reserves its whole length at once, the chunked one what has arrived
    const declared = BODY_BYTES * PER_BYTE;
    await until(async () => await metric(gateway, HELD) >= declared * 1.4, 10_000, 'held bodies');
    const reserved = await metric(gateway, HELD);
    assert.ok(reserved <= BUDGET, `${reserved} counted, over the budget`);
    const refused = await assertNothingReached(sandbox, () => send(paddedBody(BODY_BYTES)));
    assert.equal(refused.headers.get('retry-after'), String(DEFAULTS.busyRetryAfterSeconds));
    await assertRefusal(refused, 503, 'ProxyBusy');
    assert.equal(await metric(gateway, REFUSED), refusedBefore + 1);
  } finally {
    for (const conn of held) conn.close();
  }
  await until(async () => await metric(gateway, HELD) === 0, 10_000, 'the count back at 0');
  await passes(await send(paddedBody(BODY_BYTES)));
  assert.equal(await metric(gateway, HELD), 0);
}

/** Under the 64 KiB a host reads whole before the core sees the request (src/http/preread.ts). */
const SMALL_BYTES = 60_000;

/**
 * Bodies a host reads ahead are counted from their first byte too: as many as fit, held halfway,
 * fill the budget (their room taken before the read), the next is left to the core, which refuses
 * it 503 ProxyBusy with nothing forwarded; once they are cut off the count is back at 0 and it
 * passes.
 */
async function smallBodiesReadAhead(gateway: HostProcess, sandbox: Sandbox): Promise<void> {
  const each = SMALL_BYTES * PER_BYTE;
  const fit = Math.floor(BUDGET / each);
  const held: Deno.Conn[] = [];
  try {
    for (let i = 0; i < fit; i++) {
      held.push(await heldBody(gateway.url, '/svc/graphql', {}, false, SMALL_BYTES));
    }
    await until(async () => await metric(gateway, HELD) >= fit * each, 10_000, 'read ahead');
    const refused = await assertNothingReached(
      sandbox,
      () => postGraphql(gateway.url, paddedBody(SMALL_BYTES)),
    );
    assert.equal(refused.headers.get('retry-after'), String(DEFAULTS.busyRetryAfterSeconds));
    await assertRefusal(refused, 503, 'ProxyBusy');
  } finally {
    for (const conn of held) conn.close();
  }
  await until(async () => await metric(gateway, HELD) === 0, 10_000, 'the count back at 0');
  const passes = await postGraphql(gateway.url, paddedBody(SMALL_BYTES));
  assert.equal(passes.status, 200, await passes.text());
}

/** The publish queue's callback with its key: its body is read before any database call. */
const PUBLISH_DUE = '/svc/publishing/publish-due';
const PUBLISH_KEY = { 'x-svc-publish-key': SECRET };
/** The publish queue is mounted with the gate on and a service-role key (none is asked here). */
const QUEUE_ENV = {
  CLIENT_BACKEND_URL: 'http://127.0.0.1:9',
  CLIENT_BACKEND_ANON_KEY: 'anon-key',
  BACKEND_SERVICE_ROLE_KEY: 'service-role-key',
  PUBLISHING_SECRET: SECRET,
};

for (const kind of ['deno', 'node'] as const satisfies readonly HostKind[]) {
  Deno.test(`${kind}: held bodies fill the memory budget, then give it back`, async (t) => {
    const sandbox = await startSandbox();
    const budget = { SVC_TOKEN: SANDBOX_TOKEN, MEMORY_BUDGET_BYTES: String(BUDGET) };
    try {
      await t.step(
        'GraphQL: held bodies, 503 ProxyBusy past the budget, 0 once cut off',
        async () => {
          const gateway = await startGateway(kind, sandbox.url, budget);
          try {
            // a small request fits beside the held ones (checked before they are held, and after)
            const small = await postGraphql(gateway.url, {
              query: 'query Q { currentUser { id } }',
            });
            assert.equal(small.status, 200, await small.text());
            await fillAndRelease(
              gateway,
              sandbox,
              '/svc/graphql',
              {},
              (body) => postGraphql(gateway.url, body),
              async (res) => assert.equal(res.status, 200, await res.text()),
            );
            await smallBodiesReadAhead(gateway, sandbox);
          } finally {
            await gateway.stop();
          }
        },
      );
      await t.step('a JSON route: the same through the same count', async () => {
        const gateway = await startGateway(kind, sandbox.url, { ...budget, ...QUEUE_ENV });
        const send = (body: string) =>
          fetch(`${gateway.url}${PUBLISH_DUE}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...PUBLISH_KEY },
            body,
          });
        try {
          await fillAndRelease(
            gateway,
            sandbox,
            PUBLISH_DUE,
            PUBLISH_KEY,
            (body) => send(body),
            // read whole and judged: not {id} (400 InvalidRequest), never 503
            async (res) => await assertRefusal(res, 400, 'InvalidRequest').then(() => {}),
          );
        } finally {
          await gateway.stop();
        }
      });
    } finally {
      await sandbox.close();
    }
  });
}
