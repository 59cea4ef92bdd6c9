/**
 * What the client compatibility tests share (docs/clients.md): the operations they run against the
 * sandbox upstream through the gateway, the bot the gate-off fence refuses, and graphql-ws clients
 * over the runtime's own WebSocket (Deno has one; on Node 20 pass `ws`, docs/clients.md).
 */
import { type Client, type ClientOptions, createClient } from 'graphql-ws';

/** A query naming one bot: `bot(id) { id title }`. */
export const BOT_QUERY = 'query B($botID: BotID!) { bot(id: $botID) { id title } }';

/** A subscription naming one bot; the sandbox streams three events, then completes. */
export const BOOKINGS = 'subscription S($botID: BotID!) { bookingAdded(botID: $botID) { id } }';

/** A bot no deployment owns: 403 BotNotAllowed (in-band on the socket). */
export const FOREIGN_BOT = 'ffffffffffffffffffffffff';

/** The GraphQL route of a gateway at `url` (http://...). */
export function graphqlUrl(url: string): string {
  return `${url}/svc/graphql`;
}

/** The socket route of a gateway at `url`. */
export function socketUrl(url: string): string {
  return `${url.replace(/^http/, 'ws')}/svc/graphql`;
}

/** A graphql-ws client for the gateway at `url`, no retries, `extra` options over those. */
export function socketClient(url: string, extra: Partial<ClientOptions> = {}): Client {
  return createClient({
    url: socketUrl(url),
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazyCloseTimeout: 60_000,
    ...extra,
  });
}

/** The error code of the first entry of a GraphQL error list, or undefined. */
export function firstCode(errors: unknown): string | undefined {
  const list = errors as readonly { extensions?: { code?: unknown } }[] | undefined;
  const code = list?.[0]?.extensions?.code;
  return typeof code === 'string' ? code : undefined;
}
