/**
 * Every default of the browser client library, in one table.
 *
 * Implements the numbers of SPEC "Client library error classes" (retries, backoff) and the
 * client-side rows of "WebSocket close codes" (keepalive, ping timeout, socket backoff).
 * Durations are milliseconds. This table lives beside the client rather than in
 * `src/config/defaults.ts` because the client module must load in a browser without any of
 * the server's modules (README: "Client").
 */
export const CLIENT_DEFAULTS = {
  /** Same-origin GraphQL path (POST and WebSocket); SPEC "Options" httpPath. */
  graphqlPath: '/svc/graphql',
  /** Same-origin prefixes of the optional route groups (SPEC "Options"). */
  authPath: '/svc/auth',
  adminPath: '/svc/admin',
  publishingPath: '/svc/publishing',
  /** HTTP retries after the first attempt. */
  httpRetries: 3,
  /** HTTP jittered backoff: base and cap. */
  httpBaseMs: 1_000,
  httpCapMs: 30_000,
  /** Characters of an unparseable body kept on SvcHttpError.bodySnippet. */
  bodySnippetChars: 200,
  /** Socket keepalive: a ping after this long without traffic. */
  socketKeepAliveMs: 10_000,
  /** A ping unanswered this long closes the socket 4408 'Request Timeout'. */
  socketPingTimeoutMs: 5_000,
  /** Socket jittered backoff: base and cap. */
  socketBaseMs: 5_000,
  socketCapMs: 60_000,
} as const;

/**
 * Jittered exponential backoff: a delay drawn uniformly between half and all of
 * `min(capMs, baseMs * 2^attempt)` ("equal jitter"), in ms. `attempt` counts from 0 (the
 * wait before the first retry). `random` returns a number in [0, 1).
 */
export function backoffMs(
  attempt: number,
  baseMs: number,
  capMs: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
