/**
 * A browser subscriber for the flow-control tests: a `ws` client socket (graphql-transport-ws)
 * that can stop reading its TCP socket (`pause`: the kernel's receive buffer fills and TCP
 * pushes back, as for a stalled tab) and start again. It keeps only counts: frames received,
 * and whether each `next` carried the sequence number after the previous one (none lost,
 * duplicated or reordered).
 */
import { WebSocket as WsClient } from 'ws';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { FLOOD_QUERY } from '../../scripts/bench/flood_upstream.ts';

/** What a subscriber saw so far. */
export interface SubscriberState {
  /** `next` frames received. */
  received: number;
  /** The last sequence number received (-1: none). */
  last: number;
  /** `next` frames whose sequence number was not the previous one + 1. */
  outOfOrder: number;
  /** Set once the socket closed. */
  close: { code: number; reason: string } | null;
}

/** An open subscriber socket. */
export interface Subscriber {
  state: SubscriberState;
  /** Resolves with the close (code, reason). */
  closed: Promise<{ code: number; reason: string }>;
  pause(): void;
  resume(): void;
  close(): void;
}

/**
 * Opens a socket to `url` (ws://.../svc/graphql), sends connection_init; on an ack subscribes
 * to `query` (default: the flood) on `id` (default 's'). Resolves once the ack came (`admitted` true), or with the close when
 * the gateway refused the socket instead (`admitted` false, e.g. 4429).
 */
export async function subscribe(
  url: string,
  query = FLOOD_QUERY,
  id = 's',
): Promise<{ admitted: true; subscriber: Subscriber } | { admitted: false; code: number }> {
  const ws = new WsClient(url, 'graphql-transport-ws', { perMessageDeflate: false });
  const state: SubscriberState = { received: 0, last: -1, outOfOrder: 0, close: null };
  const acked = Promise.withResolvers<boolean>();
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => {
      state.close = { code, reason: String(reason) };
      acked.resolve(false);
      resolve(state.close);
    })
  );
  ws.on('error', () => {/* a close follows */});
  ws.on('message', (data) => {
    const frame = JSON.parse(String(data));
    if (frame.type === 'connection_ack') return acked.resolve(true);
    if (frame.type !== 'next') return;
    const seq = Number(frame.payload.data.bookingAdded.id);
    if (seq !== state.last + 1) state.outOfOrder++;
    state.last = seq;
    state.received++;
  });
  ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: {} })));
  if (!await acked.promise) return { admitted: false, code: (await closed).code };
  ws.send(JSON.stringify({
    id,
    type: 'subscribe',
    payload: { query, variables: { botID: WORLD_IDS.bot1 } },
  }));
  return {
    admitted: true,
    subscriber: {
      state,
      closed,
      pause: () => ws.pause(),
      resume: () => ws.resume(),
      close: () => ws.close(1000),
    },
  };
}

/** `subscribe`, requiring admission. */
export async function admittedSubscriber(
  url: string,
  query = FLOOD_QUERY,
  id = 's',
): Promise<Subscriber> {
  const opened = await subscribe(url, query, id);
  if (!opened.admitted) throw new Error(`the gateway refused the socket: ${opened.code}`);
  return opened.subscriber;
}
