/**
 * The upstream leg of one relayed socket.
 *
 * Implements SPEC "Route table" (WS row) and "Events" 2, 5: the leg opens only after the
 * browser was admitted, sends the relay's own connection_init `{authToken: 'Bearer <token>'}`,
 * and reports the upstream's connection_ack. Upstream frames are size-checked and validated;
 * a leg that closes, misbehaves, never acknowledges or stops answering pings is reported
 * `gone` with the browser's close row: the upstream's own code when it is 4000-4999, else
 * 1012 'upstream disconnected'.
 */
import { CLOSE, passesThrough } from './close_codes.ts';
import type { Counters, SocketTimers } from './counters.ts';
import {
  type JsonObject,
  parseUpstreamFrame,
  serialiseSignal,
  type UpstreamMessage,
} from './frames.ts';
import { Heartbeat, type HeartbeatPeer, type HeartbeatSlots } from './heartbeat.ts';
import type { RelayLimits } from './limits.ts';
import { scanNext } from './next_frame.ts';
import {
  RELAY_SUBPROTOCOL,
  type SocketListener,
  type UpstreamFactory,
  type UpstreamSocket,
} from './socket.ts';
import { IN_HAND_MIN_BYTES, type InHandAccount } from './socket_memory.ts';

/** The upstream heartbeat's timer slots. */
const KEEPALIVE: HeartbeatSlots = { silence: 'upstreamKeepalive', pong: 'upstreamPong' };

/** A close to send: code and (unsanitised) reason. */
export interface CloseSpec {
  code: number;
  reason: string;
}

/**
 * What the leg tells its connection (the connection implements it: no closures per socket).
 */
export interface UpstreamLegEvents {
  /** The upstream acknowledged the relay's connection_init (its ack payload). */
  upstreamReady(ackPayload: JsonObject | null): void;
  /** A validated upstream frame other than connection_ack (relay pongs already swallowed). */
  upstreamMessage(message: UpstreamMessage): void;
  /**
   * A `next` frame taken by the fast path (`next_frame.ts`): its id, its payload already
   * re-serialised (a result without `errors`), the id's JSON text, and the re-serialised frame
   * when it arrived written so (else null).
   */
  upstreamNext(id: string, payloadJson: string, idJson: string, frame: string | null): void;
  /** The leg ended on the upstream's side or was dropped; the socket ends with `close`. */
  upstreamGone(close: CloseSpec): void;
  /** The upstream socket reported closed, or could not be opened (after any `upstreamGone`). */
  upstreamClosed(): void;
}

/** What the leg needs from the relay: relay-wide, one object for every leg. */
export interface UpstreamLegContext {
  deps: { upstreamWsUrl: string; rewriteCloseReason(reason: string): string };
  openUpstream: UpstreamFactory;
  limits: RelayLimits;
  counters: Counters;
  log(line: string): void;
  now(): number;
}

/** One upstream socket, from open to close; every counter and timer it takes it gives back. */
export class UpstreamLeg implements HeartbeatPeer, SocketListener {
  #ctx: UpstreamLegContext;
  #timers: SocketTimers;
  #events: UpstreamLegEvents;
  #account: InHandAccount | null;
  #socket: UpstreamSocket | null = null;
  #ready = false;
  #ended = false;
  #relayPings = 0;
  #paused = false;
  #heartbeat: Heartbeat;
  /** The master token, from open until the socket is open (its connection_init carries it). */
  #token: string | null = null;
  #closed = false;

  /**
   * Prepares the leg on the socket's timers, telling `events` and, when the process has a memory
   * accountant, `account`; nothing is opened before {@link open}.
   */
  constructor(
    ctx: UpstreamLegContext,
    timers: SocketTimers,
    events: UpstreamLegEvents,
    account: InHandAccount | null,
  ) {
    this.#ctx = ctx;
    this.#timers = timers;
    this.#events = events;
    this.#account = account;
    this.#heartbeat = new Heartbeat(timers, KEEPALIVE, ctx.limits, ctx.now, this);
  }

  /** Opens the upstream socket and, once open, sends the relay's connection_init. */
  open(token: string): void {
    const ctx = this.#ctx;
    let socket: UpstreamSocket;
    try {
      socket = ctx.openUpstream(ctx.deps.upstreamWsUrl, RELAY_SUBPROTOCOL, {
        maxFrameBytes: ctx.limits.upstreamFrameBytes,
      });
    } catch {
      ctx.log('ws relay: the upstream socket could not be opened');
      this.#ended = true;
      this.#closed = true;
      this.#events.upstreamGone(CLOSE.upstreamDisconnected);
      this.#events.upstreamClosed();
      return;
    }
    this.#socket = socket;
    this.#token = token;
    ctx.counters.upstreamSockets++;
    socket.listen(this);
  }

  /** Whether the upstream socket reported closed (or never existed). */
  get isClosed(): boolean {
    return this.#closed;
  }

  /** Sends one (already re-serialised) frame upstream. */
  send(text: string): void {
    if (!this.#ended) this.#socket?.send(text);
  }

  /** Bytes sent upstream and not yet written to the TCP socket (0 before open and once ended). */
  bufferedAmount(): number {
    return this.#ended ? 0 : this.#socket?.bufferedAmount() ?? 0;
  }

  /**
   * Stops reading the upstream (flow control; where the transport can). A paused leg is not
   * pinged, and a pong wait already running is dropped: its pong could not be read.
   */
  pause(): void {
    this.#paused = true;
    if (this.#socket?.pause) this.#heartbeat.suspend();
    if (!this.#ended) this.#socket?.pause?.();
  }

  /** Reads the upstream again. */
  resume(): void {
    this.#paused = false;
    this.#heartbeat.alive();
    if (!this.#ended) this.#socket?.resume?.();
  }

  /** Ends the leg from the relay's side (1000 unless told otherwise); idempotent. */
  close(code = 1000, reason = ''): void {
    if (this.#ended) return;
    this.#end();
    this.#socket?.close(code, reason);
  }

  /** The upstream socket is open: the relay's connection_init goes (SocketListener). */
  socketOpened(): void {
    const token = this.#token;
    this.#token = null;
    if (this.#ended || token === null) return;
    this.#socket!.send(serialiseSignal('connection_init', { authToken: `Bearer ${token}` }));
    this.#timers.once('ack', this.#ctx.limits.upstreamAckTimeoutMs, UpstreamLeg.#ackMissed, this);
    this.#heartbeat.start();
  }

  /** The upstream sent no connection_ack in time (one function for every leg: no closure). */
  static #ackMissed(leg: UpstreamLeg): void {
    leg.#drop('no connection_ack', { code: 1000, reason: '' });
  }

  /** A WebSocket-level pong from the upstream (SocketListener). */
  socketPong(): void {
    this.#heartbeat.alive();
  }

  /**
   * One upstream frame (SocketListener); from IN_HAND_MIN_BYTES up, counted in the socket's
   * account while it is handled (socket_memory.ts): a frame that takes the process past its
   * budget can shed this socket before it is parsed.
   */
  socketMessage(text: string | null, bytes: number): void {
    const account = this.#account;
    if (account === null || bytes < IN_HAND_MIN_BYTES) return this.#handle(text, bytes);
    account.inHand(bytes);
    try {
      this.#handle(text, bytes);
    } finally {
      account.inHand(0);
    }
  }

  #handle(text: string | null, bytes: number): void {
    if (this.#ended) return;
    this.#heartbeat.alive();
    if (bytes > this.#ctx.limits.upstreamFrameBytes) {
      return this.#drop('frame over the upstream ceiling', {
        code: 4400,
        reason: 'Frame too large',
      });
    }
    const fast = text === null ? null : scanNext(text);
    if (fast !== null) {
      return this.#events.upstreamNext(fast.id, fast.payload, fast.idJson, fast.frame);
    }
    const parsed = parseUpstreamFrame(text);
    if (!parsed.ok) {
      return this.#drop(`invalid frame: ${parsed.reason}`, { code: 4400, reason: parsed.reason });
    }
    const message = parsed.message;
    if (message.type === 'connection_ack') {
      if (this.#ready) return; // a repeated ack carries nothing new
      this.#ready = true;
      this.#timers.clear('ack');
      return this.#events.upstreamReady(message.payload);
    }
    if (message.type === 'pong' && this.#relayPings > 0) {
      this.#relayPings--;
      return;
    }
    this.#events.upstreamMessage(message);
  }

  /** The upstream socket closed, from either side (SocketListener). */
  socketClosed(code: number, reason: string): void {
    this.#closed = true;
    this.#token = null;
    if (!this.#ended) {
      this.#end();
      const close = passesThrough(code)
        ? { code, reason: this.#rewrite(reason) }
        : CLOSE.upstreamDisconnected;
      this.#events.upstreamGone(close);
    }
    this.#events.upstreamClosed();
  }

  /** The injected close-reason rewriting; if it throws, the reason is dropped. */
  #rewrite(reason: string): string {
    try {
      return this.#ctx.deps.rewriteCloseReason(reason);
    } catch {
      this.#ctx.log('ws relay: close reason rewriting failed; reason dropped');
      return '';
    }
  }

  /** Sends a keepalive ping; says whether one went out (HeartbeatPeer). */
  keepalivePing(): boolean {
    const socket = this.#socket;
    if (!socket || this.#ended || this.#paused) return false;
    if (socket.ping) {
      socket.ping();
      return true;
    }
    if (!this.#ready) return false; // protocol pings only on an acknowledged connection
    this.#relayPings++;
    socket.send(serialiseSignal('ping', null));
    return true;
  }

  /** The upstream missed its pong wait: dropped as dead (HeartbeatPeer). */
  keepaliveDead(): void {
    this.#drop('unresponsive', null);
  }

  /**
   * Drops a faulty or dead upstream: closes it with `close`, or (null: dead) terminates it
   * where the transport can; the browser gets 1012 'upstream disconnected'.
   */
  #drop(why: string, close: CloseSpec | null): void {
    if (this.#ended) return;
    this.#ctx.log(`ws relay: upstream dropped: ${why}`);
    this.#end();
    if (!close && this.#socket?.terminate) this.#socket.terminate();
    else this.#socket?.close(close?.code ?? 1000, close?.reason ?? '');
    this.#events.upstreamGone(CLOSE.upstreamDisconnected);
  }

  #end(): void {
    this.#ended = true;
    if (this.#socket) this.#ctx.counters.upstreamSockets--;
    this.#timers.clear('ack');
    this.#heartbeat.stop();
  }
}
