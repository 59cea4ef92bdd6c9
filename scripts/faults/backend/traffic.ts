/**
 * The callers of a backend fault: labelled requests (an answer becomes 'ok', or '<status>
 * <code>' from the error envelope), and the ordinary traffic that keeps flowing beside the
 * fault, all from a signed-in owner whose session the gate has cached: GraphQL POSTs ('others
 * ok'), and in turn a subscription over the relay run to its end ('others subscription ok') and
 * an upload ('others upload ok'); anything else is 'others <label>'.
 */
import { createClient } from 'graphql-ws';
import { WORLD_IDS } from '../../sandbox/mod.ts';

/** A subscription naming bot 1 (the sandbox streams a few events, then completes). */
const BOOKINGS = 'subscription S($botID: BotID!) { bookingAdded(botID: $botID) { id } }';
/** Gap between two turns of the subscription-and-upload caller (ms). */
const MIXED_GAP_MS = 500;
/** A query naming one bot (`$botID`): `bot(id) { id title }` (tests/gate BOT_QUERY). */
export const BOT_QUERY = 'query B($botID: BotID!) { bot(id: $botID) { id title } }';
/** A query naming a bot and a flow (resource) id (tests/gate FLOW_QUERY). */
export const FLOW_QUERY =
  'query F($botID: BotID!, $flowID: FlowID!) { bot(id: $botID) { flow(flowID: $flowID) { id } } }';
/** A query whose answer binds the bot's flow group ids (tests/gate GROUPS_QUERY). */
export const GROUPS_QUERY = 'query G($botID: BotID!) { bot(id: $botID) { flowGroups { id } } }';

/**
 * The HTTP client of every fault caller: no idle keep-alive connection is kept, so the
 * gateway's open fds count what the gateway holds, not what this process's pool keeps open.
 */
export const CALLER_CLIENT = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });

/** fetch through CALLER_CLIENT. */
export function callerFetch(url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, { ...init, client: CALLER_CLIENT });
}

/** Answers by label. */
export type Tally = Record<string, number>;

/** Adds one `label` to `tally`. */
export function count(tally: Tally, label: string): void {
  tally[label] = (tally[label] ?? 0) + 1;
}

/**
 * The label of an answer: 'ok' for a 2xx without GraphQL errors, else '<status> <code>' (the
 * envelope's first code, or the status alone). Reads the body whole.
 */
export async function labelOf(response: Response): Promise<string> {
  const text = await response.text();
  let code: string | undefined;
  try {
    const body = JSON.parse(text);
    code = body?.errors?.[0]?.extensions?.code;
  } catch {
    // not JSON: the status alone
  }
  if (response.status >= 200 && response.status < 300 && code === undefined) return 'ok';
  return code ? `${response.status} ${code}` : `${response.status}`;
}

/** POSTs a GraphQL body with `jwt` as the bearer; the answer's label ('error' when it failed). */
export async function graphql(
  gateway: string,
  jwt: string,
  query: string,
  variables: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<string> {
  try {
    const response = await callerFetch(`${gateway}/svc/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${jwt}` },
      body: JSON.stringify({ query, variables }),
      signal,
    });
    return await labelOf(response);
  } catch (error) {
    return `error ${(error as Error).name}`;
  }
}

/** A subscription of bot 1's bookings through the relay, run to its end; its label. */
export function subscription(gateway: string, jwt: string): Promise<string> {
  const client = createClient({
    url: `${gateway.replace('http', 'ws')}/svc/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authToken: `Bearer ${jwt}` },
    retryAttempts: 0,
    lazy: true,
  });
  let events = 0;
  return new Promise<string>((resolve) => {
    client.subscribe({ query: BOOKINGS, variables: { botID: WORLD_IDS.bot1 } }, {
      next: () => void events++,
      error: (error) => resolve(`subscription ${errorLabel(error)}`),
      complete: () => resolve(events > 0 ? 'subscription ok' : 'subscription empty'),
    });
  }).finally(() => client.dispose());
}

/** The code of a graphql-ws error (error frames or a close event). */
function errorLabel(error: unknown): string {
  const frames = error as { extensions?: { code?: string } }[];
  if (Array.isArray(frames)) return frames[0]?.extensions?.code ?? 'error';
  const close = error as { code?: number; reason?: string };
  return typeof close?.code === 'number' ? `close ${close.code}` : 'error';
}

/** A 1000-byte PNG uploaded for bot 1 (REST upload route); its label ('upload ok'). */
export async function upload(gateway: string, jwt: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(1000).fill(65)], { type: 'image/png' }), 'a.png');
  try {
    const response = await callerFetch(
      `${gateway}/svc/api/filestorage/upload/bot?fileType=Image&botID=${WORLD_IDS.bot1}`,
      { method: 'POST', body: form, headers: { authorization: `Bearer ${jwt}` } },
    );
    return `upload ${await labelOf(response)}`;
  } catch (error) {
    return `upload error ${(error as Error).name}`;
  }
}

/** The ordinary traffic: who sends it and where the labels go. */
export interface OrdinaryTraffic {
  /** The bearer used (replace it with a fresh cached one between fault phases). */
  jwt: string;
  /** Stops the loop; resolves once its last request ended. */
  stop(): Promise<void>;
}

/**
 * Gap between two ordinary requests of one caller (ms): two callers stay under the tenant's 600
 * requests a minute (SPEC "Ceilings") however long a fault lasts.
 */
const ORDINARY_GAP_MS = 300;

/**
 * Starts `callers` loops of BOT_QUERY for bot 1 with `jwt` (an owner of bot 1 whose session is
 * cached) against `gateway`, and one caller alternating a subscription and an upload; each label
 * counted in `tally` as 'others <label>'.
 */
export function startOrdinaryTraffic(
  gateway: string,
  jwt: string,
  tally: Tally,
  callers = 2,
): OrdinaryTraffic {
  const stopping = new AbortController();
  const traffic: OrdinaryTraffic = { jwt, stop: async () => {} };
  const loop = async () => {
    while (!stopping.signal.aborted) {
      const label = await graphql(gateway, traffic.jwt, BOT_QUERY, { botID: WORLD_IDS.bot1 });
      count(tally, `others ${label}`);
      await new Promise((resolve) => setTimeout(resolve, ORDINARY_GAP_MS));
    }
  };
  const mixed = async () => {
    // At least one turn of each, however short the fault.
    for (let turn = 0; turn < 2 || !stopping.signal.aborted; turn++) {
      const label = turn % 2 === 0
        ? await subscription(gateway, traffic.jwt)
        : await upload(gateway, traffic.jwt);
      count(tally, `others ${label}`);
      await new Promise((resolve) => setTimeout(resolve, MIXED_GAP_MS));
    }
  };
  const loops = [...Array.from({ length: callers }, loop), mixed()];
  traffic.stop = async () => {
    stopping.abort();
    await Promise.all(loops);
  };
  return traffic;
}
