/**
 * The text frames a `ws` server socket sends in one turn of the event loop, written to its TCP
 * socket in one write of one buffer, where `ws`'s own `send` makes two stream writes and two
 * buffers per frame (a stream's frames arrive many to a read). It exists for speed alone: it
 * stays while the relay's CPU goal (CPU per frame within 1.15x of the plain floor,
 * docs/benchmarks.md "WebSocket relay") is missed without it, as measured in docs/benchmarks.md
 * "Speed-only pieces".
 *
 * Each frame is what `ws` writes for a text message on a server socket without compression
 * (RFC 6455 5.2: FIN, opcode 1, unmasked, the payload length in 7, 7+16 or 7+64 bits, the text as
 * UTF-8, a lone surrogate as U+FFFD as `Buffer.from` writes it). The owner flushes before
 * anything else it writes to the same socket (a close, a ping), so frames never pass each other;
 * a control frame `ws` writes on its own (a pong) may go before the frames of the turn, which the
 * protocol allows between messages. A close `ws` writes on its own (answering the peer's close,
 * or failing the socket) ends the turn's frames instead: no data frame may follow a close frame
 * (RFC 6455 5.5.1), so a batch whose socket is no longer open when it is written is dropped. Bytes held here count as unsent (`bytes`), so flow control and
 * the memory account see them.
 */
import { Buffer } from 'node:buffer';
import process from 'node:process';

/** The part of a TCP socket the batch writes to. */
export interface BatchSink {
  write(chunk: Uint8Array): unknown;
  readonly destroyed?: boolean;
  readonly writable?: boolean;
}

/** Bytes of a frame header for a payload of `n` bytes (RFC 6455 5.2). */
function headerBytes(n: number): number {
  return n < 126 ? 2 : n < 0x10000 ? 4 : 10;
}

/** Writes the header of a text frame of `n` payload bytes at `at`; returns where it ends. */
function writeHeader(out: Buffer, at: number, n: number): number {
  out[at] = 0x81; // FIN, text
  if (n < 126) {
    out[at + 1] = n;
    return at + 2;
  }
  if (n < 0x10000) {
    out[at + 1] = 126;
    out.writeUInt16BE(n, at + 2);
    return at + 4;
  }
  out[at + 1] = 127;
  out.writeUInt32BE(Math.floor(n / 0x100000000), at + 2);
  out.writeUInt32BE(n >>> 0, at + 6);
  return at + 10;
}

/** The WebSocket a batch belongs to: its data frames go only while it is open. */
export interface BatchSocket {
  /** The WebSocket readyState (1: OPEN). */
  readonly readyState: number;
}

/** WebSocket readyState OPEN (WHATWG WebSockets, the `ws` package alike). */
const OPEN = 1;

/** One socket's frames of the current turn. */
export class TurnBatch {
  #sink: BatchSink;
  #socket: BatchSocket;
  #texts: string[] = [];
  #lengths: number[] = [];
  #bytes = 0;
  #scheduled = false;

  /**
   * Binds the batch to the TCP socket it writes to and the WebSocket it writes for (data frames
   * go only while that one is open).
   */
  constructor(sink: BatchSink, socket: BatchSocket) {
    this.#sink = sink;
    this.#socket = socket;
  }

  /** The end of the turn of `batch` (one function for every batch: no closure per socket). */
  static #flushTurn(batch: TurnBatch): void {
    batch.#scheduled = false;
    batch.flush();
  }

  /** Frame bytes held and not yet written (headers included). */
  get bytes(): number {
    return this.#bytes;
  }

  /** Adds a text frame; the turn's frames are written once its code has run. */
  add(text: string): void {
    const n = Buffer.byteLength(text, 'utf8');
    this.#texts.push(text);
    this.#lengths.push(n);
    this.#bytes += headerBytes(n) + n;
    if (this.#scheduled) return;
    this.#scheduled = true;
    process.nextTick(TurnBatch.#flushTurn, this);
  }

  /** Writes every frame held now, in order, in one write (nothing when none is held). */
  flush(): void {
    const texts = this.#texts;
    if (texts.length === 0) return;
    if (this.#socket.readyState !== OPEN) return this.clear();
    const out = Buffer.allocUnsafe(this.#bytes);
    if (texts.length === 1 || !this.#joined(out)) this.#eachText(out);
    this.clear();
    if (!this.#sink.destroyed && this.#sink.writable !== false) this.#sink.write(out);
  }

  /**
   * Fills `out` with one encode of the turn's texts joined, written at its end, each frame's
   * payload then moved left into place behind its header (one call into the encoder for the
   * turn, not one a frame: docs/benchmarks.md "The Deno host on node:http and ws"). False when
   * the joined text's UTF-8 length is not the sum of the frames' (a lone surrogate at the end of
   * one text pairing with one at the start of the next): the frames must then be encoded apart.
   */
  #joined(out: Buffer): boolean {
    const lengths = this.#lengths;
    let payload = 0;
    for (let i = 0; i < lengths.length; i++) payload += lengths[i];
    let from = out.length - payload;
    if (out.write(this.#texts.join(''), from, payload, 'utf8') !== payload) return false;
    let at = 0;
    for (let i = 0; i < lengths.length; i++) {
      const n = lengths[i];
      at = writeHeader(out, at, n);
      out.copyWithin(at, from, from + n);
      at += n;
      from += n;
    }
    return true;
  }

  /** Fills `out` frame by frame: each header, then its text encoded in place. */
  #eachText(out: Buffer): void {
    const texts = this.#texts;
    const lengths = this.#lengths;
    let at = 0;
    for (let i = 0; i < texts.length; i++) {
      at = writeHeader(out, at, lengths[i]);
      at += out.write(texts[i], at, lengths[i], 'utf8');
    }
  }

  /** Drops every frame held (the socket is gone). */
  clear(): void {
    this.#texts.length = 0;
    this.#lengths.length = 0;
    this.#bytes = 0;
  }
}
