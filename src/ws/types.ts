/**
 * The relay's injected dependencies and its public face.
 *
 * Implements the seams of SPEC "Route table" (WS row) and "Events" 2-4: the gate reads the
 * browser's connection_init payload (`admit`), each subscribe runs the check chain of "Order in
 * which a GraphQL body is checked" (`checkSubscribe`), upstream answers get the same sentence
 * rewriting as the HTTP route (`rewriteErrors`, `rewriteCloseReason`), and a one-bot
 * subscription teaches the resource fence (`SubscribeVerdict.learn`).
 */
import type { ErrorCode } from '../http/error_codes.ts';
import type { SubscribeEntry } from './frames.ts';
import type { RelayLimits, RelayOptions } from './limits.ts';
import type { RelaySocket, UpstreamFactory } from './socket.ts';

/** What the gate decided about one socket's connection_init payload. */
export type Admission =
  | { ok: true; session: AdmittedSession }
  | {
    ok: false;
    /** Close code per SPEC "WebSocket close codes" (4401, 4403, 4429, 4500, 1013). */
    closeCode: number;
    reason: string;
  };

/** An admitted socket's session, as the gate hands it to the relay. */
export interface AdmittedSession {
  /** Session expiry, ms since the epoch; socket life = min(socketLifeMs, expiresAt - now). */
  expiresAt?: number;
  /** Called exactly once when the socket ends (frees a tenant socket slot, for instance). */
  release?(): void;
  /**
   * Called once by the relay with a function that ends this socket; the gate keeps it and
   * calls it when the session loses its right to the socket (SPEC: the admin panel removed
   * this socket's bot → 4401 Unauthorized).
   */
  onRevoke?(revoke: (closeCode: number, reason: string) => void): void;
}

/** The verdict of the check chain on one subscribe payload. */
export type SubscribeVerdict =
  | {
    ok: true;
    /** What is forwarded (re-serialised from these three fields only). */
    payload: SubscribeEntry;
    /** Called with each relayed next frame's payload JSON text (teaches the resource fence). */
    learn?(answerText: string): void;
  }
  /** In-band error frame on that id; the socket stays open. */
  | { ok: false; code: ErrorCode; message: string }
  /** The socket closes (e.g. 1013 ProxyFenceUnavailable). */
  | { ok: false; closeCode: number; reason: string };

/** An execution result (next payload) or `{errors}` wrapping an error frame's list. */
export type ResultLike = Record<string, unknown>;

/** Everything the relay needs from the rest of the gateway. */
export interface RelayDeps {
  /** The upstream's GraphQL socket address, e.g. ws://127.0.0.1:4000/graphql. */
  upstreamWsUrl: string;
  /**
   * The master token, read when an upstream socket is about to open; null (or a value holding
   * whitespace, or empty) is missing → close 4401 'svc proxy: token missing'.
   */
  token(): string | null;
  /** The three relay options, plus optional overrides of the fixed ceilings (tests). */
  limits: RelayOptions & Partial<RelayLimits>;
  /**
   * The gate seam: decides on the browser's connection_init payload (object or null). A throw
   * closes 4401 Unauthorized. Gate on or off: src/admission/socket_admission.ts `admitSocket`.
   */
  admit(initPayload: unknown): Promise<Admission>;
  /**
   * The check-chain seam for one subscribe payload (as the browser sent it, any shape). Answer
   * synchronously when no lookup is needed; a promise (e.g. a shared-store lookup) makes the
   * frames behind it on the socket wait, in order, at most 64 (then 4400). A throw or a
   * rejection becomes an error frame ProxyHandlerFailed on that id.
   */
  checkSubscribe(
    payload: unknown,
    admitted: AdmittedSession,
  ): SubscribeVerdict | Promise<SubscribeVerdict>;
  /**
   * The error-sentence rewriting of SPEC "Error envelope", applied to every relayed result
   * that carries errors: called with a next payload, or with `{errors: [...]}` for an error
   * frame; returns the same shape, rewritten. A next payload without `errors` has nothing to
   * rewrite and may not reach it (the relay's fast path, `next_frame.ts`).
   */
  rewriteErrors(result: ResultLike): ResultLike;
  /**
   * Optional: called when a subscription is forwarded upstream; the function it returns is
   * called once when that subscription ends (complete, error, socket end). The tracing seam.
   */
  traceSubscription?(): () => void;
  /** Optional: called once per next frame relayed to the browser (the metrics seam). */
  frameRelayed?(): void;
  /**
   * Optional: called once per socket closed by flow control (docs/operations.md "Slow and vanished
   * peers on the relay"): `leg` is the one that did not drain ('browser': a stalled subscriber;
   * 'upstream'), `cause` why (the metrics seam).
   */
  stallClosed?(leg: 'browser' | 'upstream', cause: 'timeout' | 'cap'): void;
  /**
   * Optional: the process's memory accountant (src/memory/, docs/operations.md "Memory"): each
   * socket keeps its account of what it holds, new sockets are refused under pressure, flow
   * control pauses at the accountant's lower mark under pressure, and past the budget the
   * accountant closes the sockets holding the most.
   */
  memory?: RelayMemory;
  /** The same rewriting for an upstream close reason that passes through (4000-4999). */
  rewriteCloseReason(reason: string): string;
  /** Opens the upstream leg (default: the `ws` package client, `openWsUpstream`). */
  openUpstream?: UpstreamFactory;
  /** One line per notable event (never carries the token; the relay also scrubs it). */
  log?(line: string): void;
  /** Clock, ms since the epoch (default Date.now). */
  now?(): number;
}

/** What the relay needs of the process's memory accountant (src/memory/accountant.ts). */
export interface RelayMemory {
  /** Past the pressure threshold now (read per frame). */
  readonly pressed: boolean;
  /** Under pressure, a leg pauses the other past this many unsent bytes. */
  readonly pressureHighWaterBytes: number;
  /** True (and counted) when a new socket must be refused now. */
  refuseSocket(): boolean;
  /** Opens one socket's account; `shed` closes the socket, `stalled` says its browser is not reading. */
  open(socket: { shed(): void; stalled(): boolean }): {
    set(bytes: number): void;
    close(): void;
  };
}

/** Live counts of the relay (all zero when idle). */
export interface RelayStats {
  /** Browser sockets accepted and not yet finished. */
  sockets: number;
  /** Of those, sockets not yet admitted (awaiting connection_init or the gate). */
  preAuth: number;
  /** Upstream sockets opened and not yet finished. */
  upstreamSockets: number;
  /** Subscriptions open (checking or forwarded) across all sockets. */
  subscriptions: number;
  /** Timers the relay holds (init, life, keepalive, ack wait). */
  timers: number;
  /** Browser frames held (before the upstream opened or behind a pending check). */
  heldFrames: number;
  /**
   * Directions paused by flow control now (docs/operations.md "Slow and vanished peers on the
   * relay"): a socket whose browser is slow pauses its upstream leg, one whose upstream is slow
   * pauses its browser leg (where it can be paused).
   */
  pausedLegs: number;
}

/** The relay, as a host uses it. */
export interface Relay {
  /**
   * Call before upgrading: null = accept; else refuse the upgrade with plain HTTP `status`
   * (503 past wsMaxSockets or wsPreAuthSockets, or while closing). The host must call
   * `accept` right after a null, in the same tick.
   */
  admitUpgrade(): { status: 503; reason: string; retryAfterSeconds?: number } | null;
  /** Takes over a browser socket the host just upgraded (graphql-transport-ws agreed). */
  accept(browser: RelaySocket): void;
  /** Live counts. */
  stats(): RelayStats;
  /**
   * Counts since the relay started: `heldFrames`, browser frames that had to be held (before
   * the upstream opened or behind a pending check); the metrics' svc_relay_held_frames_total.
   */
  totals(): { heldFrames: number };
  /**
   * Ends every socket (default 1001 'going away'), refuses later upgrades, and resolves when
   * both legs of every socket reported closed (or after a 2 s cap).
   */
  closeAll(code?: number, reason?: string): Promise<void>;
}
