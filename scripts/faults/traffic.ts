/**
 * The callers of the upstream and browser faults (docs/operations.md "Faults"): labelled answers,
 * and the ordinary traffic that keeps flowing beside a fault: GraphQL POSTs naming a bot, a REST
 * upload and a subscription (each subscription streams a few events and completes; a fresh one
 * follows). Every ordinary answer is counted as 'others <label>' ('others ok' when it went
 * through), so a report shows whether the fault reached anyone else.
 */
import { type Client, createClient } from 'graphql-ws';
import { WORLD_IDS } from '../sandbox/mod.ts';

/** A query naming bot 1 (the bot fence asks the upstream once, then caches). */
export const BOT_QUERY = 'query B($botID: BotID!) { bot(id: $botID) { id title } }';
/** A subscription naming bot 1. */
export const BOOKINGS = 'subscription S($botID: BotID!) { bookingAdded(botID: $botID) { id } }';
/** The fault's own GraphQL call: the stand-in applies its mode to operation `Fault` only. */
export const FAULT_QUERY = 'query Fault { currentUser { id } }';
/**
 * The fault's own upload path (the stand-in applies its mode to `fileType=fault` only): a
 * parameter the path takes, since the gateway forwards no other (docs/routes.md).
 */
export const FAULT_UPLOAD = '/svc/api/filestorage/upload/useraccount?fileType=fault';
/** An ordinary upload path (bot 1). */
export const ORDINARY_UPLOAD = `/svc/api/filestorage/upload/bot?botID=${WORLD_IDS.bot1}`;

/**
 * The HTTP client of every caller: no idle keep-alive connection is kept, so the gateway's
 * open fds count what the gateway holds, not what this process's pool keeps open.
 */
export const CALLER_CLIENT = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });

/** Answers by label. */
export type Tally = Record<string, number>;

/** Adds one `label` to `tally`. */
export function count(tally: Tally, label: string): void {
  tally[label] = (tally[label] ?? 0) + 1;
}

/**
 * The label of an answer: 'ok' for a 2xx without GraphQL errors, else '<status> <code>' (the
 * envelope's first code, or the status alone). Reads the body whole; a body cut short is
 * 'cut <status>'.
 */
export async function labelOf(response: Response): Promise<string> {
  let text: string;
  try {
    text = await response.text();
  } catch {
    return `cut ${response.status}`;
  }
  let code: string | undefined;
  try {
    code = JSON.parse(text)?.errors?.[0]?.extensions?.code;
  } catch {
    if (response.ok) return `${response.status} not JSON`;
  }
  if (response.ok && code === undefined) return 'ok';
  return code ? `${response.status} ${code}` : `${response.status}`;
}

/** POSTs `body` (JSON) to the gateway's GraphQL route; the answer's label ('error <name>'). */
export async function graphql(
  gateway: string,
  body: unknown,
  signal?: AbortSignal,
): Promise<string> {
  try {
    const response = await fetch(`${gateway}/svc/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal,
      client: CALLER_CLIENT,
    });
    return await labelOf(response);
  } catch (error) {
    return `error ${(error as Error).name}`;
  }
}

/** A multipart body with one small PNG-typed `file` part. */
export function uploadForm(): FormData {
  const form = new FormData();
  const bytes = new Uint8Array(2048).fill(7);
  form.append('file', new Blob([bytes], { type: 'image/png' }), 'f.png');
  return form;
}

/** POSTs an upload to `path` of the gateway; the answer's label. */
export async function upload(gateway: string, path: string, signal?: AbortSignal) {
  try {
    const response = await fetch(`${gateway}${path}`, {
      method: 'POST',
      body: uploadForm(),
      signal,
      client: CALLER_CLIENT,
    });
    return await labelOf(response);
  } catch (error) {
    return `error ${(error as Error).name}`;
  }
}

/** A graphql-ws client of the gateway's socket (no retries: every close is reported). */
export function socketClient(gateway: string): Client {
  return createClient({
    url: `${gateway.replace('http', 'ws')}/svc/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: true,
  });
}

/**
 * Disposes `client`; never rejects (graphql-ws can reject with the socket's error Event when the
 * socket failed while connecting: nothing is left to close then).
 */
export async function disposeQuietly(client: Client): Promise<void> {
  try {
    await client.dispose();
  } catch { /* the socket is gone already */ }
}

/** The label of a subscription's end: 'ok' (completed), 'close <code>' or 'error <message>'. */
export function subscribeOnce(client: Client, botID: string = WORLD_IDS.bot1): Promise<string> {
  return new Promise((resolve) => {
    let events = 0;
    client.subscribe({ query: BOOKINGS, variables: { botID } }, {
      next: () => void events++,
      error: (error) => {
        const code = (error as CloseEvent)?.code;
        resolve(typeof code === 'number' ? `close ${code}` : `error ${String(error).slice(0, 60)}`);
      },
      complete: () => resolve(events > 0 ? 'ok' : 'completed empty'),
    });
  });
}

/** The ordinary traffic loops; `stop()` ends them and waits for their last calls. */
export interface OrdinaryTraffic {
  stop(): Promise<void>;
}

/** Gap between two calls of one loop (ms): well under the tenant's 600 a minute. */
const ORDINARY_GAP_MS = 250;

/**
 * Starts the ordinary loops against `gateway`: a POST loop, an upload loop and a subscription
 * loop, every end counted in `tally` as 'others <label>'.
 */
export function startOrdinaryTraffic(gateway: string, tally: Tally): OrdinaryTraffic {
  const stopping = new AbortController();
  const loop = (call: () => Promise<string>) => async () => {
    while (!stopping.signal.aborted) {
      const label = await call();
      // a call ended by stop() itself (the socket client disposed) is not an answer
      if (!stopping.signal.aborted) count(tally, `others ${label}`);
      await new Promise((resolve) => setTimeout(resolve, ORDINARY_GAP_MS));
    }
  };
  const client = socketClient(gateway);
  const loops = [
    loop(() => graphql(gateway, { query: BOT_QUERY, variables: { botID: WORLD_IDS.bot1 } })),
    loop(() => upload(gateway, ORDINARY_UPLOAD)),
    loop(() => subscribeOnce(client)),
  ].map((run) => run());
  return {
    async stop() {
      stopping.abort();
      await disposeQuietly(client);
      await Promise.all(loops);
    },
  };
}
