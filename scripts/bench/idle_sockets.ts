/**
 * Memory per idle socket for the relay scenario: a server process's resident memory (VmRSS,
 * bytes) read while graphql-transport-ws sockets sit acknowledged and idle (connection_init
 * answered with connection_ack, no subscription). Sockets are opened in batches, each batch
 * acknowledged before the next, so the gateway's pre-auth ceiling (WS_PRE_AUTH_SOCKETS, 32 by
 * default) is never crossed by the bench itself.
 */
import { residentBytes } from './proc.ts';

/** Sockets opened at once before waiting for their acks. */
export const IDLE_SOCKET_BATCH = 16;

/** How the memory figure is taken. */
export interface IdleMemorySpec {
  /** ws://.../graphql (direct) or ws://.../svc/graphql (gateway). */
  url: string;
  /** connection_init payload. */
  initPayload: Record<string, unknown>;
  /** The process whose resident memory is read. */
  pid: number;
  /** Sockets opened (and kept open) before the first reading, so one-time costs fall before it. */
  warm: number;
  /** Sockets opened between the two readings. */
  count: number;
  /** Pause before each reading, ms (lets the server finish the handshakes' work). */
  settleMs: number;
}

/** Both readings and the figure: (after - before) / count, bytes. */
export interface IdleMemory {
  beforeBytes: number;
  afterBytes: number;
  count: number;
  perSocketBytes: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Opens `warm` sockets, reads the resident memory, opens `count` more, reads it again, then
 * closes them all. Throws when a socket is closed before its ack (e.g. a ceiling refused it).
 * The figure includes whatever the process holds per socket (for a gateway: the browser socket
 * and its upstream leg); it is noisy by the garbage collector's timing, so it is a size, not a
 * precise count.
 */
export async function idleSocketMemory(spec: IdleMemorySpec): Promise<IdleMemory> {
  const opened: WebSocket[] = [];
  try {
    opened.push(...await openIdleSockets(spec.url, spec.initPayload, spec.warm));
    await sleep(spec.settleMs);
    const beforeBytes = await residentBytes(spec.pid);
    opened.push(...await openIdleSockets(spec.url, spec.initPayload, spec.count));
    await sleep(spec.settleMs);
    const afterBytes = await residentBytes(spec.pid);
    return {
      beforeBytes,
      afterBytes,
      count: spec.count,
      perSocketBytes: (afterBytes - beforeBytes) / spec.count,
    };
  } finally {
    await closeAll(opened);
  }
}

/**
 * Opens `count` sockets in batches of IDLE_SOCKET_BATCH, each acknowledged before the next batch,
 * and leaves them idle. Throws (after closing those it opened) when one is closed before its ack.
 */
export async function openIdleSockets(
  url: string,
  initPayload: Record<string, unknown>,
  count: number,
): Promise<WebSocket[]> {
  const sockets: WebSocket[] = [];
  try {
    for (let i = 0; i < count; i += IDLE_SOCKET_BATCH) {
      const batch = Array.from(
        { length: Math.min(IDLE_SOCKET_BATCH, count - i) },
        () => ackedSocket(url, initPayload, sockets),
      );
      await Promise.all(batch);
    }
    return sockets;
  } catch (error) {
    await closeAll(sockets);
    throw error;
  }
}

/** Closes every socket (1000) and waits for each close. */
export async function closeAll(sockets: WebSocket[]): Promise<void> {
  await Promise.all(sockets.map((ws) =>
    new Promise<void>((resolve) => {
      if (ws.readyState === WebSocket.CLOSED) return resolve();
      ws.addEventListener('close', () => resolve(), { once: true });
      if (ws.readyState !== WebSocket.CLOSING) ws.close(1000, 'done');
    })
  ));
}

/** One socket, pushed to `into` at once (so a failure still closes it); resolves at its ack. */
function ackedSocket(
  url: string,
  initPayload: Record<string, unknown>,
  into: WebSocket[],
): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, 'graphql-transport-ws');
    into.push(ws);
    let acked = false;
    ws.addEventListener('open', () => {
      ws.send(JSON.stringify({ type: 'connection_init', payload: initPayload }));
    });
    ws.addEventListener('message', (event) => {
      if (!acked && JSON.parse(String(event.data)).type === 'connection_ack') {
        acked = true;
        resolve();
      }
    });
    ws.addEventListener('close', (event) => {
      if (!acked) reject(new Error(`socket closed before its ack: ${event.code} ${event.reason}`));
    });
  });
}
