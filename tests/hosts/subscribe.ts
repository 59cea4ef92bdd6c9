/**
 * One subscription through a running gateway, to its end: what the host tests that start a
 * gateway process of their own (the single executable, the package's sandbox) read of the relay.
 */
import { createClient } from 'graphql-ws';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { DEMO_SUBSCRIPTION } from '../../scripts/demo/relay.ts';

/** Every `next` payload of the demo subscription for bot 1 through the gateway at `origin`. */
export async function subscribeToEnd(origin: string): Promise<unknown[]> {
  const client = createClient({
    url: `${origin.replace(/^http/, 'ws')}/svc/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: true,
  });
  try {
    const payloads: unknown[] = [];
    await new Promise<void>((resolve, reject) => {
      client.subscribe(
        { query: DEMO_SUBSCRIPTION, variables: { botID: WORLD_IDS.bot1 } },
        { next: (p) => void payloads.push(p), error: reject, complete: resolve },
      );
    });
    return payloads;
  } finally {
    await client.dispose();
  }
}
