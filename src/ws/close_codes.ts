/**
 * The WebSocket close codes of the relay, as one table.
 *
 * Implements SPEC "Errors" → "WebSocket close codes". Each row is (code, reason, cause) as the
 * spec lists it. Rows the gate and tenant limits decide (4401 AuthSessionRequired, 4403, 4500,
 * 1013, 4429) are listed so the gate can use the same table; the relay itself closes with
 * the rows marked `relay`. The two 4400 rows are the spec's "malformed-frame or overflow
 * sentence" spelled out per cause.
 */
import { redactText } from '../http/token_redaction.ts';

export const CLOSE = {
  /** Gate refused the init payload's authToken with 401. */
  authSessionRequired: { code: 4401, reason: 'AuthSessionRequired', by: 'gate' },
  /** First frame not connection_init, the gate threw, or the admin panel removed the bot. */
  unauthorized: { code: 4401, reason: 'Unauthorized', by: 'relay' },
  /** No master token when the upstream socket was about to open ('svc' is the product word). */
  tokenMissing: { code: 4401, reason: 'svc proxy: token missing', by: 'relay' },
  /** Gate answered 403 or the bot set is empty. */
  authTenantForbidden: { code: 4403, reason: 'AuthTenantForbidden', by: 'gate' },
  /** Partial backend configuration. */
  authMisconfigured: { code: 4500, reason: 'ProxyAuthMisconfigured', by: 'gate' },
  /** Gate answered 503. */
  authUnavailable: { code: 1013, reason: 'ProxyAuthUnavailable', by: 'gate' },
  /** Gate off, fence unresolvable. */
  fenceUnavailable: { code: 1013, reason: 'ProxyFenceUnavailable', by: 'gate' },
  /** No connection_init within wsInitTimeoutMs. */
  initTimeout: { code: 4408, reason: 'Connection initialisation timeout', by: 'relay' },
  /** Per-tenant socket ceiling. */
  tooManyTenantSockets: {
    code: 4429,
    reason: 'Too many open sockets for this account',
    by: 'gate',
  },
  /**
   * A subscribe on an id already open. graphql-transport-ws (PROTOCOL.md, Subscribe) closes 4409
   * "Subscriber for <id> already exists"; the reason names no id, since it never echoes input.
   */
  duplicateSubscriber: {
    code: 4409,
    reason: 'Subscriber for this id already exists',
    by: 'relay',
  },
  /** Bad frame or missing id; the reason is the sentence from `frames.ts`. */
  badFrame: { code: 4400, reason: 'Invalid frame', by: 'relay' },
  /** Browser frame over its ceiling. */
  frameTooLarge: { code: 4400, reason: 'Frame too large', by: 'relay' },
  /** Frames held before the upstream opened overflowed. */
  heldBeforeUpstreamOverflow: {
    code: 4400,
    reason: 'Too many frames before the upstream opened',
    by: 'relay',
  },
  /** Frames held behind a pending subscribe check overflowed. */
  heldBehindLookupOverflow: {
    code: 4400,
    reason: 'Too many frames behind a pending check',
    by: 'relay',
  },
  /** Socket reached its deadline (one hour, or the session's exp). */
  deadline: { code: 1012, reason: 'reconnect to be re-authorised', by: 'relay' },
  /** Any upstream close outside 4000-4999, or an upstream found dead or misbehaving. */
  upstreamDisconnected: { code: 1012, reason: 'upstream disconnected', by: 'relay' },
  /**
   * Not a spec row (docs/operations.md "Slow and vanished peers on the relay"): the browser did not
   * read what the relay sent it (its unsent bytes stayed over the high-water mark past the stall
   * timeout, or passed the cap). 1013 "try again later": the client library reconnects with
   * backoff, as for a stalled network.
   */
  browserStalled: {
    code: 1013,
    reason: 'Client too slow: unsent frames over the limit',
    by: 'relay',
  },
  /**
   * Not a spec row (docs/operations.md "Slow and vanished peers on the relay"): the same for an
   * upstream that does not read the browser's frames.
   */
  upstreamStalled: { code: 1013, reason: 'Upstream too slow to take frames', by: 'relay' },
  /**
   * Not a spec row (docs/operations.md "Memory"): a connection_init while the process is past its
   * memory pressure threshold. 1013 "try again later", the spec's busy word; the client retries.
   */
  memoryBusy: { code: 1013, reason: 'ProxyBusy', by: 'relay' },
  /**
   * Not a spec row (docs/operations.md "Memory"): past the process's memory budget the sockets
   * holding the most are closed, the stall close's family (1013; the client retries).
   */
  memoryShed: {
    code: 1013,
    reason: 'Gateway short of memory: this socket held the most unsent frames',
    by: 'relay',
  },
  /**
   * Not a spec row: the host is shutting the relay down (`Relay.closeAll` default). 1001 is the
   * WebSocket standard's "going away"; clients retry it.
   */
  goingAway: { code: 1001, reason: 'going away', by: 'host' },
} as const;

/** A row of {@link CLOSE}. */
export type CloseRow = (typeof CLOSE)[keyof typeof CLOSE];

/** Upstream application close codes 4000-4999 pass through to the browser (SPEC "Events" 5). */
export function passesThrough(code: number): boolean {
  return Number.isInteger(code) && code >= 4000 && code <= 4999;
}

/** Longest close reason a WebSocket carries, in UTF-8 bytes (RFC 6455 §5.5: 125 - 2). */
export const CLOSE_REASON_MAX_BYTES = 123;

/**
 * Makes a close reason safe to send: every occurrence of `secret` (the master token, when
 * known and non-empty) is replaced (src/http/token_redaction.ts), then the text is cut to 123 UTF-8 bytes
 * without splitting a character. SPEC "Conventions": the token never appears in a close reason.
 */
export function safeCloseReason(reason: string, secret: string | null): string {
  let out = redactText(reason, secret);
  const bytes = new TextEncoder().encode(out);
  if (bytes.length <= CLOSE_REASON_MAX_BYTES) return out;
  out = new TextDecoder().decode(bytes.slice(0, CLOSE_REASON_MAX_BYTES));
  // A cut multi-byte character decodes to U+FFFD (3 bytes): drop it to stay within the cap.
  while (new TextEncoder().encode(out).length > CLOSE_REASON_MAX_BYTES || out.endsWith('\uFFFD')) {
    out = out.slice(0, -1);
  }
  return out;
}
