/** Shared pieces of the observability tests. */
import { createClient } from 'graphql-ws';
import { assertRefusal } from '../helpers/assertions.ts';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';

/** The value of the one sample line `series` (name with labels) of an exposition, or null. */
export function sample(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : null;
}

/** A text/plain POST to the GraphQL path, asserted 415 UnsupportedMediaType (step 1). */
export async function refusedTextPlain(url: string): Promise<void> {
  await assertRefusal(
    await fetch(`${url}/svc/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{}',
    }),
    415,
    'UnsupportedMediaType',
  );
}

/**
 * Runs the sandbox's three-event booking subscription for bot1 through the gateway at `url` with
 * a real graphql-ws client (init payload `params`); resolves to the number of events.
 */
export async function subscribeToEnd(
  url: string,
  params: Record<string, unknown> = {},
): Promise<number> {
  const client = createClient({
    url: `${url.replace('http', 'ws')}/svc/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: params,
    retryAttempts: 0,
    lazy: true,
  });
  try {
    let events = 0;
    await new Promise<void>((resolve, reject) => {
      client.subscribe({
        query: 'subscription S($botID: BotID!) { bookingAdded(botID: $botID) { id } }',
        variables: { botID: WORLD_IDS.bot1 },
      }, { next: () => void events++, error: reject, complete: resolve });
    });
    return events;
  } finally {
    await client.dispose();
  }
}

/**
 * `fetch` over a connection of its own (closed after the answer is read whole): a worker
 * deployment hands each new connection to the next worker, so calls spread over the workers.
 */
export async function freshFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const client = Deno.createHttpClient({});
  try {
    const res = await fetch(url, { ...init, client });
    const body = await res.arrayBuffer();
    return new Response(body, { status: res.status, headers: res.headers });
  } finally {
    client.close();
  }
}

/** `count` GraphQL POSTs of `body` to `url`, each on a connection of its own; their statuses. */
export async function postsSpread(url: string, body: unknown, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const res = await freshFetch(`${url}/svc/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    statuses.push(res.status);
  }
  return statuses;
}
