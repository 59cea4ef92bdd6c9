/**
 * Adapter for the `ws` package's sockets, and the default upstream factory.
 *
 * Implements the Node half of "Both hosts" (SPEC "Route table", WS row): the Node host's
 * browser sockets (`WebSocketServer` with `noServer`) and the upstream leg on every host go
 * through {@link adaptWsSocket}. The default upstream factory is the `ws` client rather than a
 * global `WebSocket` because Node 20 has none and because `ws` takes an `agent`, through which
 * HTTPS_PROXY can later be honoured (see {@link createWsUpstream}).
 */
import { WebSocket as WsWebSocket } from 'ws';
import type { Agent } from 'node:http';
import { type BatchSink, TurnBatch } from './turn_batch.ts';
import type { SocketListener, UpstreamFactory, UpstreamSocket } from './socket.ts';

/** Byte size of a `ws` message (Buffer, ArrayBuffer or Buffer[] by binaryType). */
function wsBytes(data: unknown): number {
  if (Array.isArray(data)) return data.reduce((n: number, b: Uint8Array) => n + b.byteLength, 0);
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) return data.byteLength;
  return 0;
}

/** One decoder for every message (a decoder per message cost a measurable share per frame). */
const decoder = new TextDecoder();

/** Text of a `ws` text message. */
function wsText(data: unknown): string {
  if (Array.isArray(data)) return data.map((b: Uint8Array) => decoder.decode(b)).join('');
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) {
    return decoder.decode(data as ArrayBufferView | ArrayBuffer);
  }
  return String(data);
}

/**
 * The batch of a server socket's text frames (turn_batch.ts), written to the TCP socket under
 * the `ws` WebSocket (its `_socket`); null where `ws` must frame them itself: no TCP socket, or
 * compression agreed.
 */
function turnBatch(ws: WsWebSocket): TurnBatch | null {
  const socket = (ws as unknown as { _socket?: Partial<BatchSink> })._socket;
  if (typeof socket?.write !== 'function' || ws.extensions !== '') return null;
  return new TurnBatch(socket as BatchSink, ws);
}

/**
 * Adapts a `ws` package WebSocket (`role`: the browser's server-side socket, or a client: the
 * upstream leg) to the relay's socket interface,
 * with WebSocket-level ping, pong and terminate, and flow control: `bufferedAmount` (bytes
 * queued and not yet written to the TCP socket), `pause`/`resume` (stop and start reading it).
 * Its 'error' events are absorbed (a 'close' always follows), so they never crash the process.
 */
export function adaptWsSocket(
  ws: WsWebSocket,
  role: 'server' | 'client' = 'server',
): UpstreamSocket {
  return new WsSocketAdapter(ws, role);
}

/** Absorbs a `ws` socket's 'error' events: a 'close' follows each. */
function absorbError(): void {}

/** Where a `ws` socket keeps its adapter, for the shared listeners below. */
const ADAPTER = Symbol('relay socket adapter');
type AdaptedWs = WsWebSocket & { [ADAPTER]: WsSocketAdapter };

/**
 * The adapter of {@link adaptWsSocket}: a class, so its methods live once on the prototype and
 * an idle socket holds two fields (docs/benchmarks.md "Where the Deno host's idle socket goes").
 */
class WsSocketAdapter implements UpstreamSocket {
  readonly #ws: WsWebSocket;
  /**
   * The browser's socket (`server`): frames sent in one turn of the event loop (a stream's frames
   * arrive many to a TCP read) go to the kernel in one write of one buffer (turn_batch.ts;
   * docs/benchmarks.md "Where a relayed frame's CPU goes"). Its bytes count in `bufferedAmount`, so
   * flow control sees them; it is written before a close or a ping. The upstream leg (`client`)
   * carries the browser's few frames, masked, through `ws` itself.
   */
  readonly #batch: TurnBatch | null;
  #listener: SocketListener | null = null;

  constructor(ws: WsWebSocket, role: 'server' | 'client') {
    ws.on('error', absorbError);
    (ws as AdaptedWs)[ADAPTER] = this;
    this.#ws = ws;
    this.#batch = role === 'server' ? turnBatch(ws) : null;
  }

  /**
   * The socket's listeners, one function each for every socket (`ws` calls a listener with the
   * socket as `this`): no closure per socket.
   */
  static #messageListener(this: WsWebSocket, data: unknown, isBinary: boolean): void {
    const adapter = (this as AdaptedWs)[ADAPTER];
    adapter.#listener?.socketMessage(isBinary ? null : wsText(data), wsBytes(data));
  }

  static #closeListener(this: WsWebSocket, code: number, reason: Uint8Array): void {
    (this as AdaptedWs)[ADAPTER].#listener?.socketClosed(code, wsText(reason));
  }

  static #pongListener(this: WsWebSocket): void {
    (this as AdaptedWs)[ADAPTER].#listener?.socketPong?.();
  }

  static #openListener(this: WsWebSocket): void {
    (this as AdaptedWs)[ADAPTER].#listener?.socketOpened?.();
  }

  send(text: string): void {
    if (this.#ws.readyState !== WsWebSocket.OPEN) return;
    if (this.#batch) this.#batch.add(text);
    else this.#ws.send(text);
  }

  close(code: number, reason: string): void {
    const ws = this.#ws;
    this.#batch?.flush();
    if (ws.isPaused) ws.resume(); // read the peer's close frame (a paused socket never would)
    if (ws.readyState === WsWebSocket.OPEN || ws.readyState === WsWebSocket.CONNECTING) {
      try {
        ws.close(code, reason);
      } catch {
        ws.terminate(); // a code `ws` refuses: drop rather than stay open
      }
    }
  }

  /**
   * One listener: the relay sets it once per socket ('open' is listened to only while the socket
   * is connecting: an upstream client's).
   */
  listen(listener: SocketListener): void {
    if (this.#listener === null) {
      const ws = this.#ws;
      ws.on('message', WsSocketAdapter.#messageListener);
      ws.on('close', WsSocketAdapter.#closeListener);
      ws.on('pong', WsSocketAdapter.#pongListener);
      if (ws.readyState === WsWebSocket.CONNECTING) ws.on('open', WsSocketAdapter.#openListener);
    }
    this.#listener = listener;
  }

  ping(): void {
    this.#batch?.flush();
    if (this.#ws.readyState === WsWebSocket.OPEN) this.#ws.ping();
  }

  terminate(): void {
    this.#batch?.clear();
    this.#ws.terminate();
  }

  bufferedAmount(): number {
    return this.#ws.bufferedAmount + (this.#batch?.bytes ?? 0);
  }

  pause(): void {
    const ws = this.#ws;
    if (ws.readyState === WsWebSocket.OPEN && !ws.isPaused) ws.pause();
  }

  resume(): void {
    if (this.#ws.isPaused) this.#ws.resume();
  }
}

/** Options of the `ws` upstream factory. */
export interface WsUpstreamOptions {
  /** An http(s) Agent for the upstream connection (e.g. an HTTPS_PROXY tunnel agent). */
  agent?: Agent;
}

/**
 * Builds an upstream factory over the `ws` client: no compression, `maxPayload` set to the
 * relay's upstream frame ceiling (a larger frame makes `ws` close the leg 1009, which the
 * relay turns into 1012 'upstream disconnected'). No browser header travels.
 */
export function createWsUpstream(options: WsUpstreamOptions = {}): UpstreamFactory {
  return (url, protocol, open) =>
    adaptWsSocket(
      new WsWebSocket(url, protocol, {
        maxPayload: open.maxFrameBytes,
        perMessageDeflate: false,
        ...(options.agent ? { agent: options.agent } : {}),
      }),
      'client',
    );
}

/** The default upstream factory: the `ws` client without an agent. */
export const openWsUpstream: UpstreamFactory = createWsUpstream();
