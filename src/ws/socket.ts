/**
 * The small socket interface the relay talks to, and its adapter for Web-standard WebSockets.
 *
 * Implements the "Both hosts" part of the WS route (SPEC "Route table", DESIGN "one core, thin
 * hosts"): `Deno.upgradeWebSocket`'s socket and a Web `WebSocket` client (Deno, browsers) go
 * through {@link adaptWebSocket}; the `ws` package's sockets go through `adaptWsSocket`
 * (`ws_socket.ts`). The relay core never sees either API.
 */
import { DEFAULTS } from '../config/defaults.ts';
import { utf8Length } from './frames.ts';

/** The graphql-transport-ws subprotocol, the only one the relay speaks on either leg. */
export const RELAY_SUBPROTOCOL = 'graphql-transport-ws';

/**
 * What a socket tells its one listener. The relay's connection (browser leg) and upstream leg
 * implement it themselves, so a socket holds no closure per event (docs/benchmarks.md "The relay's
 * own objects per idle socket").
 */
export interface SocketListener {
  /**
   * Every received message: `text` is the frame's text, or null for a binary frame (never of
   * the protocol); `bytes` its size in bytes (UTF-8 for text).
   */
  socketMessage(text: string | null, bytes: number): void;
  /** Once, when the socket is closed by either side (1005/1006 when no code came). */
  socketClosed(code: number, reason: string): void;
  /** A WebSocket-level pong, where the transport reports it. */
  socketPong?(): void;
  /** Once, when an upstream socket is open (the subprotocol was agreed); client sockets only. */
  socketOpened?(): void;
}

/**
 * One leg of the relay, as the relay sees it. Sends and closes on a socket that is not open
 * are ignored, and no method throws (a close code the transport refuses still closes); its
 * listener is set once, by the relay.
 */
export interface RelaySocket {
  /** Sends one text frame. */
  send(text: string): void;
  /** Closes with a code and a reason (at most 123 UTF-8 bytes; the relay cuts it). */
  close(code: number, reason: string): void;
  /**
   * Sets the one listener of the socket's messages, close and (where the transport reports them)
   * pongs; a second call replaces the first.
   */
  listen(listener: SocketListener): void;
  /** WebSocket-level ping, where the transport offers one (its pongs go to `socketPong`). */
  ping?(): void;
  /** Drops the connection without a closing handshake (dead peer), where offered. */
  terminate?(): void;
  /**
   * Bytes given to `send` and not yet handed to the operating system (docs/operations.md "Slow and
   * vanished peers on the relay": flow control reads it after each send and while paused). 0 once
   * closed.
   */
  bufferedAmount(): number;
  /**
   * Stops reading the peer (its frames stay in the kernel, so TCP pushes back), where the
   * transport can; a few frames already read may still arrive. Idempotent.
   */
  pause?(): void;
  /** Starts reading again after {@link pause}. Idempotent. */
  resume?(): void;
}

/**
 * The upstream leg: a client socket, which also tells its listener's `socketOpened` once it is
 * open (the subprotocol was agreed).
 */
export type UpstreamSocket = RelaySocket;

/** Options the relay passes when it opens an upstream socket. */
export interface UpstreamOpenOptions {
  /** Largest frame the upstream may send, in bytes (a transport may enforce it itself). */
  maxFrameBytes: number;
}

/**
 * Opens the upstream leg: a client socket to `url` offering `protocol`. May throw (bad URL);
 * the relay then closes the browser 1012 'upstream disconnected'.
 */
export type UpstreamFactory = (
  url: string,
  protocol: string,
  options: UpstreamOpenOptions,
) => UpstreamSocket;

/** Size in bytes of a binary message's data (ArrayBuffer, typed array or Blob). */
function binaryBytes(data: unknown): number {
  if (data instanceof ArrayBuffer) return data.byteLength;
  if (ArrayBuffer.isView(data)) return data.byteLength;
  if (typeof Blob !== 'undefined' && data instanceof Blob) return data.size;
  return 0;
}

/** How a server socket's close waits for a browser that is still sending (ms). */
export interface CloseLinger {
  /** The browser must have sent nothing for this long before the close frame goes. */
  quietMs: number;
  /** The close goes at the latest this long after it was asked for. */
  maxMs: number;
}

/** The defaults, from the one table (`socketCloseQuietMs`, `socketCloseLingerMs`). */
export const CLOSE_LINGER: CloseLinger = {
  quietMs: DEFAULTS.socketCloseQuietMs,
  maxMs: DEFAULTS.socketCloseLingerMs,
};

/**
 * Adapts a Web-standard WebSocket (Deno's upgraded socket, Deno's or a browser's client) to {@link
 * UpstreamSocket}. No WebSocket-level ping here: the Web API has none, so the Deno.serve handler of
 * the Deno worker mode sets `idleTimeout` on `Deno.upgradeWebSocket` and the relay pings an
 * upstream of this kind with protocol `ping` frames. No pause either (the Web API cannot stop
 * reading): flow control reads `bufferedAmount` (Deno's upgraded socket counts the bytes it has not
 * yet written to the TCP socket; measured, docs/operations.md "Slow and vanished peers on the
 * relay") and closes past its bounds instead of pausing.
 *
 * `role` says which end this is. A close asked for while a server socket is still connecting
 * is applied as soon as it opens (Deno ignores a close in that state); a client socket that is
 * still connecting is abandoned at once.
 *
 * A server socket's close lingers while the browser is sending: Deno's upgraded socket drops
 * the connection without a close frame (the browser sees 1006) when a data frame arrives after
 * it sent its close, which is exactly what happens when the relay refuses a browser mid-burst
 * (4400 past 64 held frames, frame too large). So the close frame goes once the browser has
 * been quiet `linger.quietMs` (at once when it already is), and at the latest `linger.maxMs`
 * after it was asked for (a browser that never stops sending may then see 1006). Frames that
 * arrive meanwhile are dropped, never delivered.
 */
export function adaptWebSocket(
  ws: WebSocket,
  role: 'server' | 'client' = 'server',
  linger: CloseLinger = CLOSE_LINGER,
): UpstreamSocket {
  return new WebSocketLeg(ws, role, linger);
}

/**
 * The adapter behind {@link adaptWebSocket}. Its methods live on the prototype and it listens
 * through itself (`handleEvent`): one listener per event type and no closures, since an idle
 * relayed socket's memory counts (docs/benchmarks.md "The relay's own objects per idle socket").
 * 'open' is listened to only where something waits for it.
 */
class WebSocketLeg implements UpstreamSocket {
  #ws: WebSocket;
  #role: 'server' | 'client';
  #linger: CloseLinger;
  #closeWhenOpen: [number, string] | null = null;
  #lastMessageAt = -Infinity;
  #closing: { code: number; reason: string; deadline: number } | null = null;
  #lingerTimer: ReturnType<typeof setTimeout> | undefined;
  #listener: SocketListener | null = null;
  #listensOpen = false;

  constructor(ws: WebSocket, role: 'server' | 'client', linger: CloseLinger) {
    this.#ws = ws;
    this.#role = role;
    this.#linger = linger;
    ws.binaryType = 'arraybuffer';
    ws.addEventListener('error', this); // a close event follows; nothing to do
    ws.addEventListener('message', this);
    ws.addEventListener('close', this);
  }

  /** The socket's events, all through this one listener. */
  handleEvent(event: Event): void {
    if (event.type === 'message') this.#message(event as MessageEvent);
    else if (event.type === 'close') {
      clearTimeout(this.#lingerTimer);
      const { code, reason } = event as CloseEvent;
      this.#listener?.socketClosed(code, reason);
    } else if (event.type === 'open') {
      if (this.#closeWhenOpen) this.#ws.close(...this.#closeWhenOpen);
      this.#listener?.socketOpened?.();
    }
  }

  #message(event: MessageEvent): void {
    this.#lastMessageAt = Date.now();
    const listener = this.#listener;
    if (this.#closing || !listener) return;
    const data: unknown = event.data;
    if (typeof data === 'string') listener.socketMessage(data, utf8Length(data));
    else listener.socketMessage(null, binaryBytes(data));
  }

  #listenOpen(): void {
    if (this.#listensOpen) return;
    this.#listensOpen = true;
    this.#ws.addEventListener('open', this);
  }

  #closeNow(code: number, reason: string): void {
    const ws = this.#ws;
    if (ws.readyState !== WebSocket.OPEN) return;
    try {
      ws.close(code, reason);
    } catch {
      ws.close(); // a code the Web API refuses: close without one rather than stay open
    }
  }

  #closeWhenQuiet(): void {
    const closing = this.#closing!;
    const { quietMs } = this.#linger;
    const now = Date.now();
    const quietFor = now - this.#lastMessageAt;
    if (quietFor >= quietMs || now >= closing.deadline) {
      return this.#closeNow(closing.code, closing.reason);
    }
    const wait = Math.min(quietMs - quietFor, closing.deadline - now);
    this.#lingerTimer = setTimeout(() => this.#closeWhenQuiet(), Math.max(1, wait));
  }

  send(text: string): void {
    if (this.#ws.readyState === WebSocket.OPEN && !this.#closing) this.#ws.send(text);
  }

  close(code: number, reason: string): void {
    if (this.#closing) return;
    const ws = this.#ws;
    if (ws.readyState === WebSocket.CONNECTING && this.#role === 'server') {
      this.#closeWhenOpen = [code, reason];
      this.#listenOpen();
    } else if (ws.readyState === WebSocket.CONNECTING) ws.close();
    else if (ws.readyState === WebSocket.OPEN && this.#role === 'server') {
      this.#closing = { code, reason, deadline: Date.now() + this.#linger.maxMs };
      this.#closeWhenQuiet();
    } else this.#closeNow(code, reason);
  }

  listen(listener: SocketListener): void {
    this.#listener = listener;
    if (this.#role === 'client') this.#listenOpen();
  }

  bufferedAmount(): number {
    return this.#ws.bufferedAmount;
  }
}

/**
 * Upstream factory over the global Web `WebSocket` (Deno, browsers, Node ≥ 22). Cannot carry
 * an HTTPS_PROXY agent; the default factory is the `ws` package's (`ws_socket.ts`).
 */
export const openWebSocketUpstream: UpstreamFactory = (url, protocol) =>
  adaptWebSocket(new WebSocket(url, protocol), 'client');
