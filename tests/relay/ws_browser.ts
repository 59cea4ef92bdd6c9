/**
 * A browser socket for the relay tests through the whole gateway, on the `ws` client.
 */
import { WebSocket as WsClient } from 'ws';

/**
 * Opens a graphql-transport-ws socket on the `ws` client: every frame received (parsed), the
 * close, `send` (an object as JSON) and `close` (1000). The `ws` client rather than Deno's own: Deno's client
 * and Deno's server (2.9.6) sometimes end a close handshake that follows a burst with 1006 on
 * both sides, where `ws` never does.
 */
export async function browser(url: string) {
  const ws = new WsClient(url, 'graphql-transport-ws');
  const frames: unknown[] = [];
  ws.on('message', (data) => frames.push(JSON.parse(String(data))));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: String(reason) }))
  );
  await new Promise((resolve, reject) => {
    ws.on('open', resolve);
    ws.on('error', reject);
  });
  return {
    frames,
    closed,
    send: (frame: unknown) => ws.send(JSON.stringify(frame)),
    close: () => ws.close(1000),
  };
}

/** An open browser socket. */
export type Browser = Awaited<ReturnType<typeof browser>>;
