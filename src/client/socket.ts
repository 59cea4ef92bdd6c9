/**
 * createSvcSocket: a graphql-ws Client (graphql-transport-ws) configured with the spec's
 * client-side socket rules. Implements SPEC "WebSocket close codes" (client-side codes) and
 * "Authentication" 3 (authToken in connection_init). graphql-ws does the protocol; this module
 * chooses its options, and socket_restart.ts carries the subscriptions across the closes
 * graphql-ws would give up on by itself.
 */
import { type Client, createClient } from 'graphql-ws/client';
import { classifyErrors } from './classify.ts';
import { backoffMs, CLIENT_DEFAULTS } from './defaults.ts';
import { SvcApiError, type SvcErrorEntry, SvcNetworkError, SvcSessionError } from './errors.ts';
import type { AccessTokenGetter } from './http.ts';
import { createRestartingClient, type SocketEventHandlers } from './socket_restart.ts';
import { sameOriginUrl, sleepOrOnline, socketUrl } from './util.ts';

/**
 * Close codes after which the client stops retrying (SPEC "WebSocket close codes": 4403 in
 * addition to 4400, 4401, 4406, 4409, 4429). Every other close or failure retries.
 */
export const FATAL_CLOSE_CODES: readonly number[] = [4400, 4401, 4403, 4406, 4409, 4429];

/** Options of {@link createSvcSocket}. */
export interface SvcSocketOptions {
  /** ws(s) URL, an http(s) URL, or a path. Default: the page's origin + '/svc/graphql'. */
  url?: string;
  /** Read fresh on every connect: connectionParams `{authToken: 'Bearer <jwt>'}`. */
  getAccessToken?: AccessTokenGetter;
  /**
   * Called after the socket connected again following a close that lost subscriptions
   * (any close but a clean 1000): refetch what the app shows.
   */
  onReconnect?: () => void;
  /**
   * Reconnect backoff (ms): before reconnection _n_ (from 0, reset by each connection_ack) a
   * random wait between half and all of `min(capMs, baseMs * 2^n)`, ended early by the browser's
   * `online` event. Defaults: 5000 base, 60000 cap (SPEC "WebSocket close codes"). Tests use a
   * few ms to keep reconnections fast.
   */
  retry?: { baseMs?: number; capMs?: number };
  /** Keepalive ping interval (ms, default 10000) and pong wait (ms, default 5000, then 4408). */
  keepAliveMs?: number;
  pingTimeoutMs?: number;
}

/** Whether graphql-ws may retry after `value` (a close event or another failure). */
export function shouldRetrySocket(value: unknown): boolean {
  const code = closeCodeOf(value);
  return code === null || !FATAL_CLOSE_CODES.includes(code);
}

/** The close code of a CloseEvent-like value, else null. */
export function closeCodeOf(value: unknown): number | null {
  if (value === null || typeof value !== 'object') return null;
  const { code, reason } = value as { code?: unknown; reason?: unknown };
  return typeof code === 'number' && typeof reason === 'string' ? code : null;
}

/**
 * The client error for what a graphql-ws sink received: an error frame's list goes through
 * the same classification as HTTP (session, auth, plain GraphQL; status 0); a close 4401
 * AuthSessionRequired or 4403 AuthTenantForbidden (the gate's closes, SPEC "WebSocket close
 * codes") is an SvcSessionError; another close an SvcApiError naming its code and reason;
 * anything else an SvcNetworkError.
 */
export function socketError(value: unknown): SvcApiError {
  if (Array.isArray(value)) return classifyErrors(value as SvcErrorEntry[], null, 0);
  const code = closeCodeOf(value);
  if (code !== null) {
    const reason = (value as { reason: string }).reason;
    const session = code === 4401 && reason === 'AuthSessionRequired'
      ? 'sessionRequired'
      : code === 4403 && reason === 'AuthTenantForbidden'
      ? 'forbidden'
      : null;
    if (session) {
      const entry = { message: reason, extensions: { code: reason } };
      const facts = { code: reason, traceId: null, codes: [reason], status: 0 };
      return new SvcSessionError(session, [entry], null, facts);
    }
    return new SvcApiError(`socket closed ${code}${reason ? ` ${reason}` : ''}`);
  }
  return new SvcNetworkError('socket failure', value);
}

/**
 * Creates the socket client (a graphql-ws `Client`); lazy: it connects on the first subscribe.
 * SPEC "WebSocket close codes", client-side codes: a close in FATAL_CLOSE_CODES ends every
 * subscription of the socket (each sink's `error` gets the close once; nothing reconnects);
 * every other close or failure reconnects after the jittered backoff (`retry`, resolved early by
 * the browser's `online` event) and subscribes the live subscriptions again with their sinks,
 * including the closes graphql-ws would give up on by itself (socket_restart.ts).
 */
export function createSvcSocket(options: SvcSocketOptions = {}): Client {
  const baseMs = options.retry?.baseMs ?? CLIENT_DEFAULTS.socketBaseMs;
  const capMs = options.retry?.capMs ?? CLIENT_DEFAULTS.socketCapMs;
  const pingTimeoutMs = options.pingTimeoutMs ?? CLIENT_DEFAULTS.socketPingTimeoutMs;
  const url = socketUrl(options.url ?? sameOriginUrl(CLIENT_DEFAULTS.graphqlPath));
  let socket: WebSocket | null = null;
  let pongTimer: ReturnType<typeof setTimeout> | undefined;
  let connectedBefore = false;
  let lostSince = false;
  // waits since the last connection_ack, whichever path (graphql-ws's retry or a restart) waited
  let attempt = 0;
  const backoff = (signal?: AbortSignal) =>
    sleepOrOnline(backoffMs(attempt++, baseMs, capMs), signal);

  const makeClient = (forward: SocketEventHandlers) =>
    createClient({
      url,
      connectionParams: async () => {
        const token = await options.getAccessToken?.();
        return token ? { authToken: `Bearer ${token}` } : {};
      },
      keepAlive: options.keepAliveMs ?? CLIENT_DEFAULTS.socketKeepAliveMs,
      retryAttempts: Infinity,
      shouldRetry: shouldRetrySocket,
      retryWait: () => backoff(),
      on: {
        ...forward,
        connected: (s, payload, wasRetry) => {
          socket = s as WebSocket;
          attempt = 0;
          if (connectedBefore && lostSince) options.onReconnect?.();
          connectedBefore = true;
          lostSince = false;
          forward.connected(s, payload, wasRetry);
        },
        closed: (event) => {
          clearTimeout(pongTimer);
          socket = null;
          if (closeCodeOf(event) !== 1000) lostSince = true;
          forward.closed(event);
        },
        ping: (received, payload) => {
          if (!received) {
            clearTimeout(pongTimer);
            pongTimer = setTimeout(() => {
              if (socket?.readyState === WebSocket.OPEN) socket.close(4408, 'Request Timeout');
            }, pingTimeoutMs);
          }
          forward.ping(received, payload);
        },
        pong: (received, payload) => {
          if (received) clearTimeout(pongTimer);
          forward.pong(received, payload);
        },
      },
    });

  return createRestartingClient({
    makeClient,
    restarts: (error) => closeCodeOf(error) !== null && shouldRetrySocket(error),
    wait: backoff,
  });
}
