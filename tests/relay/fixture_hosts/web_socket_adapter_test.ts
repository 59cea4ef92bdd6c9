/**
 * The Web WebSocket adapter (src/ws/socket.ts) on Deno's upgraded socket, where its listeners are
 * taken only as needed: a close asked for while the socket is still connecting (before the
 * upgrade's response went out) reaches the browser once the socket opens, with its code and
 * reason; frames reach the relay with their UTF-8 size.
 */
import assert from 'node:assert/strict';
import { adaptWebSocket, type UpstreamSocket } from '../../../src/ws/socket.ts';

/** A Deno server whose every upgrade goes through `adaptWebSocket`, handed to `accepted`. */
function serve(accepted: (socket: UpstreamSocket) => void) {
  return Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: () => {} }, (request) => {
    const { socket, response } = Deno.upgradeWebSocket(request);
    accepted(adaptWebSocket(socket));
    return response;
  });
}

/** The browser's close; rejects (and drops the socket) when none came within 5 s (a guard). */
const closed = (ws: WebSocket) =>
  new Promise<{ code: number; reason: string }>((resolve, reject) => {
    const guard = setTimeout(() => {
      ws.onclose = null;
      ws.close();
      reject(new Error('no close reached the browser'));
    }, 5000);
    ws.onclose = (event) => {
      clearTimeout(guard);
      resolve({ code: event.code, reason: event.reason });
    };
  });

Deno.test('a close asked for while connecting reaches the browser once open', async () => {
  const server = serve((socket) => socket.close(4000, 'closed before open'));
  try {
    const ws = new WebSocket(`ws://127.0.0.1:${server.addr.port}/`);
    assert.deepEqual(await closed(ws), { code: 4000, reason: 'closed before open' });
  } finally {
    await server.shutdown();
  }
});

Deno.test('frames reach the relay with their UTF-8 size; the close is reported', async () => {
  const received: Array<[string | null, number]> = [];
  let reported: Promise<[number, string]> = Promise.resolve([0, '']);
  const server = serve((socket) => {
    reported = new Promise((resolve) =>
      socket.listen({
        socketClosed: (code, reason) => resolve([code, reason]),
        socketMessage(text, bytes) {
          received.push([text, bytes]);
          if (received.length === 2) socket.close(1000, 'done');
        },
      })
    );
  });
  try {
    const ws = new WebSocket(`ws://127.0.0.1:${server.addr.port}/`);
    ws.onopen = () => {
      ws.send('é');
      ws.send(new Uint8Array(3));
    };
    assert.deepEqual(await closed(ws), { code: 1000, reason: 'done' });
    assert.deepEqual(received, [['é', 2], [null, 3]]);
    assert.deepEqual((await reported)[0], 1000);
  } finally {
    await server.shutdown();
  }
});
