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
import { Heartbeat } from './heartbeat.ts';
import type { RelayLimits } from './limits.ts';
import { scanNext } from './next_frame.ts';
import { RELAY_SUBPROTOCOL, type UpstreamFactory, type UpstreamSocket } from './socket.ts';

/** A close to send: code and (unsanitised) reason. */
export interface CloseSpec {
  code: number;
  reason: string;
}

/** What the leg tells its connection. */
export interface UpstreamLegEvents {
  /** The upstream acknowledged the relay's connection_init (its ack payload). */
  ready(ackPayload: JsonObject | null): void;
  /** A validated upstream frame other than connection_ack (relay pongs already swallowed). */
  message(message: UpstreamMessage): void;
  /**
   * A `next` frame taken by the fast path (`next_frame.ts`): its id, its payload already
   * re-serialised (a result without `errors`), the id's JSON text, and the re-serialised frame
   * when it arrived written so (else null).
   */
  next(id: string, payloadJson: string, idJson: string, frame: string | null): void;
  /** The leg ended on the upstream's side or was dropped; the socket ends with `close`. */
  gone(close: CloseSpec): void;
}

/** What the leg needs from the relay. */
export interface UpstreamLegContext {
  url: string;
  openUpstream: UpstreamFactory;
  limits: RelayLimits;
  counters: Counters;
  timers: SocketTimers;
  rewriteCloseReason(reason: string): string;
  log(line: string): void;
  now(): number;
}

/** One upstream socket, from open to close; every counter and timer it takes it gives back. */
export class UpstreamLeg {
  #ctx: UpstreamLegContext;
  #events: UpstreamLegEvents;
  #socket: UpstreamSocket | null = null;
  #ready = false;
  #ended = false;
  #relayPings = 0;
  #paused = false;
  #heartbeat: Heartbeat;
  #closed!: () => void;
  /** Resolves once the upstream socket reported closed (or never existed). */
  readonly closed: Promise<void>;

  /** Prepares the leg; nothing is opened before {@link open}. */
  constructor(ctx: UpstreamLegContext, events: UpstreamLegEvents) {
    this.#ctx = ctx;
    this.#events = events;
    this.closed = new Promise((resolve) => this.#closed = resolve);
    this.#heartbeat = new Heartbeat({
      timers: ctx.timers,
      names: { silence: 'upstreamKeepalive', pong: 'upstreamPong' },
      limits: ctx.limits,
      now: ctx.now,
      ping: () => this.#ping(),
      dead: () => this.#drop('unresponsive', null),
    });
  }

  /** Opens the upstream socket and, once open, sends the relay's connection_init. */
  open(token: string): void {
    const ctx = this.#ctx;
    let socket: UpstreamSocket;
    try {
      socket = ctx.openUpstream(ctx.url, RELAY_SUBPROTOCOL, {
        maxFrameBytes: ctx.limits.upstreamFrameBytes,
      });
    } catch {
      ctx.log('ws relay: the upstream socket could not be opened');
      this.#ended = true;
      this.#closed();
      this.#events.gone(CLOSE.upstreamDisconnected);
      return;
    }
    this.#socket = socket;
    ctx.counters.upstreamSockets++;
    socket.onOpen(() => this.#opened(token));
    socket.onMessage((text, bytes) => this.#received(text, bytes));
    socket.onPong?.(() => this.#heartbeat.alive());
    socket.onClose((code, reason) => this.#peerClosed(code, reason));
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

  #opened(token: string): void {
    if (this.#ended) return;
    const { limits, timers } = this.#ctx;
    this.#socket!.send(serialiseSignal('connection_init', { authToken: `Bearer ${token}` }));
    timers.once(
      'ack',
      limits.upstreamAckTimeoutMs,
      () => this.#drop('no connection_ack', { code: 1000, reason: '' }),
    );
    this.#heartbeat.start();
  }

  #received(text: string | null, bytes: number): void {
    if (this.#ended) return;
    this.#heartbeat.alive();
    if (bytes > this.#ctx.limits.upstreamFrameBytes) {
      return this.#drop('frame over the upstream ceiling', {
        code: 4400,
        reason: 'Frame too large',
      });
    }
    const fast = text === null ? null : scanNext(text);
    if (fast !== null) return this.#events.next(fast.id, fast.payload, fast.idJson, fast.frame);
    const parsed = parseUpstreamFrame(text);
    if (!parsed.ok) {
      return this.#drop(`invalid frame: ${parsed.reason}`, { code: 4400, reason: parsed.reason });
    }
    const message = parsed.message;
    if (message.type === 'connection_ack') {
      if (this.#ready) return; // a repeated ack carries nothing new
      this.#ready = true;
      this.#ctx.timers.clear('ack');
      return this.#events.ready(message.payload);
    }
    if (message.type === 'pong' && this.#relayPings > 0) {
      this.#relayPings--;
      return;
    }
    this.#events.message(message);
  }

  #peerClosed(code: number, reason: string): void {
    this.#closed();
    if (this.#ended) return;
    this.#end();
    const close = passesThrough(code)
      ? { code, reason: this.#rewrite(reason) }
      : CLOSE.upstreamDisconnected;
    this.#events.gone(close);
  }

  /** The injected close-reason rewriting; if it throws, the reason is dropped. */
  #rewrite(reason: string): string {
    try {
      return this.#ctx.rewriteCloseReason(reason);
    } catch {
      this.#ctx.log('ws relay: close reason rewriting failed; reason dropped');
      return '';
    }
  }

  /** Sends a keepalive ping; says whether one went out. */
  #ping(): boolean {
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
    this.#events.gone(CLOSE.upstreamDisconnected);
  }

  #end(): void {
    this.#ended = true;
    if (this.#socket) this.#ctx.counters.upstreamSockets--;
    this.#ctx.timers.clear('ack');
    this.#heartbeat.stop();
  }
}
