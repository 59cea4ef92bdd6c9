/**
 * A GraphQL upstream answer is counted from its first byte (docs/operations.md "Memory", "What is
 * counted"), on both hosts: an upstream that sends 6 MiB of an answer and then stalls has the
 * gateway count at least 2 x those bytes (the chunks and their joined copy) while it waits, not
 * nothing until the last byte; the answer then arrives whole, and once it is sent the count is
 * back at zero. The same count through the fetch transport: tests/upstream/answer_bytes_test.ts.
 */
import assert from 'node:assert/strict';
import type { HostKind } from '../../scripts/host_process.ts';
import { fixedAnswer } from '../../scripts/bench/fixed_upstream.ts';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { postGraphql } from '../helpers/assertions.ts';
import { serveLoopback } from '../helpers/loopback_server.ts';
import { metric, MIB, sleep, startGateway, until } from './helpers.ts';

const BOT_NAME = 'query BotName($botID: BotID!) { bot(id: $botID) { id name } }';
/** What the upstream sends before it stalls: about 6 MiB of the bot's name. */
const NAME = 'n'.repeat(6 * MIB);
const HEAD = `{"data":{"bot":{"id":"${WORLD_IDS.bot1}","name":"${NAME}`;
const TAIL = '"}}}';

/** Answers the fence at once, and BotName with {@link HEAD}, then waits for `release`. */
interface StallingUpstream {
  url: string;
  /** Set once HEAD is handed to the socket. */
  stalled: Promise<void>;
  release(): void;
  /** BotName requests received. */
  forwards: number;
  close(): Promise<void>;
}

async function startStallingUpstream(): Promise<StallingUpstream> {
  const stalled = Promise.withResolvers<void>();
  const released = Promise.withResolvers<void>();
  const encoder = new TextEncoder();
  const state: StallingUpstream = {
    url: '',
    stalled: stalled.promise,
    release: () => released.resolve(),
    forwards: 0,
    close: () => {
      released.resolve();
      return server.close();
    },
  };
  const server = await serveLoopback(async (request) => {
    await request.arrayBuffer();
    const json = { 'content-type': 'application/json' };
    if (new URL(request.url).search !== '?op=BotName') {
      return new Response(fixedAnswer(), { headers: json });
    }
    state.forwards++;
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(encoder.encode(HEAD));
        stalled.resolve();
        await released.promise;
        controller.enqueue(encoder.encode(TAIL));
        controller.close();
      },
    });
    return new Response(body, { headers: json });
  });
  state.url = server.url;
  return state;
}

async function scenario(kind: HostKind): Promise<void> {
  const upstream = await startStallingUpstream();
  const gateway = await startGateway(kind, upstream.url);
  try {
    const held = () => metric(gateway, 'svc_memory_held_bytes');
    assert.equal(await held(), 0);
    const answer = postGraphql(gateway.url, {
      query: BOT_NAME,
      variables: { botID: WORLD_IDS.bot1 },
    });
    answer.catch(() => {/* awaited below; a failed assertion first leaves it to the finally */});
    await upstream.stalled;
    // the bytes sent before the stall reach the gateway and are counted as they arrive
    let seen = 0;
    for (const end = Date.now() + 15_000; Date.now() < end;) {
      seen = await held();
      if (seen >= 2 * HEAD.length) break;
      await sleep(50);
    }
    assert.ok(seen >= 2 * HEAD.length, `counted ${seen} bytes while the answer was read`);
    upstream.release();
    const res = await answer;
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.data.bot.name, NAME, 'the answer arrived whole');
    assert.equal(upstream.forwards, 1);
    await until(async () => await held() === 0, 10_000, 'nothing counted once answered');
  } finally {
    upstream.release();
    await gateway.stop();
    await upstream.close();
  }
}

for (const kind of ['deno', 'node'] as const) {
  Deno.test({
    name: `[${kind}] a GraphQL upstream answer is counted from its first byte`,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: () => scenario(kind),
  });
}
