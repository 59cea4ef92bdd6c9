/**
 * The socket ceilings of the graphql-transport-ws relay, as one table.
 *
 * Implements the socket rows of SPEC "Limits" → "Ceilings" (browser frame, upstream frame,
 * frames held before the upstream opens, frames held behind a shared-store lookup, open
 * subscriptions, socket life) and the three relay options of "Options" (wsMaxSockets,
 * wsPreAuthSockets, wsInitTimeoutMs), which the core resolves and passes in.
 *
 * The numbers come from `src/config/defaults.ts`, the one table of every default and ceiling;
 * a caller (tests) may override any of them through {@link relayLimits}.
 */
import { DEFAULTS } from '../config/defaults.ts';
import { ceiling } from '../config/parse.ts';

/** Fixed socket ceilings (bytes, frames, ms), read from the one table of defaults. */
export const SOCKET_LIMITS = {
  /** Largest browser frame accepted, in bytes (UTF-8 text); past it the socket closes 4400. */
  browserFrameBytes: DEFAULTS.browserFrameBytes,
  /** Largest upstream frame accepted, in bytes; past it the upstream leg is dropped (1012). */
  upstreamFrameBytes: DEFAULTS.upstreamFrameBytes,
  /** Browser frames held while the upstream socket is not yet acknowledged; past it 4400. */
  heldFramesBeforeUpstream: DEFAULTS.heldFramesBeforeUpstream,
  /** Bytes of browser frames held while the upstream is not yet acknowledged; past it 4400. */
  heldBytesBeforeUpstream: DEFAULTS.heldBytesBeforeUpstream,
  /** Browser frames held behind a pending subscribe check (shared-store lookup); past it 4400. */
  heldFramesBehindLookup: DEFAULTS.heldFramesBehindLookup,
  /** Open subscriptions per socket; the next subscribe gets an error frame TooManySubscriptions. */
  subscriptionsPerSocket: DEFAULTS.subscriptionsPerSocket,
  /** Socket life in ms (or the session's exp, whichever is sooner); then close 1012. */
  socketLifeMs: DEFAULTS.socketLifeMs,
  /**
   * Keepalive: a leg silent this long (ms) is pinged (not a spec number; docs/operations.md "Slow
   * and vanished peers on the relay") ...
   */
  wsPingIntervalMs: DEFAULTS.wsPingIntervalMs,
  /** ... and dropped when nothing came back this long (ms) after the ping. */
  wsPongTimeoutMs: DEFAULTS.wsPongTimeoutMs,
  /**
   * Flow control (docs/operations.md "Slow and vanished peers on the relay"): unsent bytes on a leg
   * past which the other leg stops being read.
   */
  wsHighWaterBytes: DEFAULTS.wsHighWaterBytes,
  /** Unsent bytes at or below which reading resumes (at most the high-water mark). */
  wsLowWaterBytes: DEFAULTS.wsLowWaterBytes,
  /** A leg above the high-water mark this long (ms) closes the socket 1013. */
  wsStallTimeoutMs: DEFAULTS.wsStallTimeoutMs,
  /** Unsent bytes past which the socket closes 1013 at once (raised to admit one upstream frame). */
  wsBufferCapBytes: DEFAULTS.wsBufferCapBytes,
  /** How often (ms) a paused leg's unsent bytes are read back. */
  wsFlowPollMs: DEFAULTS.wsFlowPollMs,
  /** Wait in ms for the upstream's connection_ack after it opened (not a spec number); then 1012. */
  upstreamAckTimeoutMs: DEFAULTS.upstreamAckTimeoutMs,
  /**
   * Deepest nesting of a browser frame, its own object being level 1 (jsonMaxDepth,
   * docs/configuration.md "Ceilings"); deeper is a bad frame, close 4400, never parsed.
   */
  jsonMaxDepth: DEFAULTS.jsonMaxDepth,
} as const;

/** The fixed ceilings, as numbers a caller may override. */
export type SocketLimits = { -readonly [K in keyof typeof SOCKET_LIMITS]: number };

/** The relay options of SPEC "Options", resolved by the core (defaults 256, 32, 5000 ms). */
export interface RelayOptions {
  /** Browser sockets per instance; past it the upgrade is refused 503. */
  wsMaxSockets: number;
  /** Sockets waiting for admission (connection_init not yet admitted); past it 503. */
  wsPreAuthSockets: number;
  /** Wait in ms for the browser's connection_init; then close 4408. */
  wsInitTimeoutMs: number;
}

/** Defaults of the relay options, per SPEC "Options" (the core passes resolved values). */
export const RELAY_OPTION_DEFAULTS: RelayOptions = {
  wsMaxSockets: DEFAULTS.wsMaxSockets,
  wsPreAuthSockets: DEFAULTS.wsPreAuthSockets,
  wsInitTimeoutMs: DEFAULTS.wsInitTimeoutMs,
};

/** Every ceiling the relay reads: the options plus the fixed ceilings. */
export type RelayLimits = RelayOptions & SocketLimits;

/**
 * The smallest hard cap of unsent bytes (docs/operations.md "Slow and vanished peers on the
 * relay"): the high-water mark plus one upstream frame at its ceiling plus room for its
 * re-serialisation, so a single legal frame never trips it.
 */
export function minimumBufferCap(limits: SocketLimits): number {
  return limits.wsHighWaterBytes + limits.upstreamFrameBytes + DEFAULTS.wsFrameSlackBytes;
}

/**
 * Builds the relay's limits: the given options over the fixed ceilings. A value that is not a
 * positive finite number falls back to its default (the one rule of src/config/parse.ts
 * `ceiling`). The low-water mark is
 * kept at or below the high-water mark, the cap at or above {@link minimumBufferCap}, and the JSON
 * depth at or below DEFAULTS.jsonDepthHardMax.
 */
export function relayLimits(given: Partial<RelayLimits> = {}): RelayLimits {
  const base: RelayLimits = { ...RELAY_OPTION_DEFAULTS, ...SOCKET_LIMITS };
  const out = { ...base };
  for (const key of Object.keys(base) as (keyof RelayLimits)[]) {
    const value = given[key];
    out[key] = ceiling(typeof value === 'number' ? value : undefined, base[key]);
  }
  out.wsLowWaterBytes = Math.min(out.wsLowWaterBytes, out.wsHighWaterBytes);
  out.wsBufferCapBytes = Math.max(out.wsBufferCapBytes, minimumBufferCap(out));
  out.jsonMaxDepth = Math.min(out.jsonMaxDepth, DEFAULTS.jsonDepthHardMax);
  return Object.freeze(out);
}
