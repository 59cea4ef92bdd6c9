/**
 * The upstream frame in hand (src/ws/socket_memory.ts; docs/operations.md "Memory"), on both test
 * hosts, with a recording memory accountant: a `next` frame from IN_HAND_MIN_BYTES up is counted
 * IN_HAND_COPIES times in the socket's account while the relay handles it (before it is parsed),
 * and not any more once it was handled; a smaller frame is never counted in hand. The frames still
 * reach the browser whole, and the account is closed with the socket.
 */
import assert from 'node:assert/strict';
import { closeClient, initialisedClient } from './fixtures/clients.ts';
import { testBothHosts, withWorld } from './fixtures/setup.ts';
import { startRawUpstream, waitFor } from './fixtures/upstream.ts';
import type { RelayMemory } from '../../../src/ws/types.ts';
import { IN_HAND_COPIES, IN_HAND_MIN_BYTES } from '../../../src/ws/socket_memory.ts';

/** A `next` payload whose frame is about `bytes` long. */
function nextOf(id: string, bytes: number): Record<string, unknown> {
  return { type: 'next', id, payload: { data: { pad: 'x'.repeat(bytes) } } };
}

/** An accountant that never presses, recording every value each account was set to. */
function recordingMemory() {
  const sets: number[] = [];
  let opened = 0;
  let closed = 0;
  const memory: RelayMemory = {
    pressed: false,
    pressureHighWaterBytes: 1 << 20,
    refuseSocket: () => false,
    open: () => {
      opened++;
      return { set: (bytes) => void sets.push(bytes), close: () => void closed++ };
    },
  };
  return { memory, sets, counts: () => ({ opened, closed }) };
}

testBothHosts(
  'an upstream frame in hand is counted 3x while it is handled, then not',
  async (kind) => {
    const big = IN_HAND_MIN_BYTES * 2;
    const small = IN_HAND_MIN_BYTES / 4;
    const raw = await startRawUpstream((peer, message) => {
      if (message.type === 'connection_init') return peer.send({ type: 'connection_ack' });
      if (message.type !== 'subscribe') return;
      peer.send(nextOf(message.id!, message.id === 'big' ? big : small));
    });
    const recorder = recordingMemory();
    try {
      await withWorld(
        kind,
        { upstreamUrl: raw.url, deps: (base) => ({ ...base, memory: recorder.memory }) },
        async ({ host }) => {
          const c = await initialisedClient(host.url);
          c.send({ id: 'small', type: 'subscribe', payload: { query: 'subscription { s }' } });
          const smallFrame = await c.next();
          assert.equal(smallFrame.id, 'small');
          assert.ok(
            recorder.sets.every((b) => b < small * IN_HAND_COPIES),
            `a small frame is not counted in hand: ${Math.max(...recorder.sets)}`,
          );
          c.send({ id: 'big', type: 'subscribe', payload: { query: 'subscription { s }' } });
          const bigFrame = await c.next();
          assert.equal(bigFrame.id, 'big');
          const pad = (bigFrame.payload as { data: { pad: string } }).data.pad;
          assert.equal(pad.length, big, 'the frame reached the browser whole');
          const peak = Math.max(...recorder.sets);
          assert.ok(peak >= big * IN_HAND_COPIES, `in hand while handled: ${peak}`);
          // once handled, the account holds what is still unsent toward the browser (about the
          // frame's bytes, as flow control last read them), no longer the frame in hand
          const last = recorder.sets.at(-1)!;
          assert.ok(last < big * 2, `not in hand once handled: ${last}`);
          await closeClient(c);
        },
      );
      await waitFor(() => recorder.counts().closed === 1, 3_000);
      assert.deepEqual(recorder.counts(), { opened: 1, closed: 1 });
    } finally {
      await raw.close();
    }
  },
);
