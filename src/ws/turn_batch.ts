/**
 * The text frames a `ws` server socket sends in one turn of the event loop, written to its TCP
 * socket in one write of one buffer (docs/benchmarks.md, relay: a stream's frames arrive many to
 * a read, and `ws` writes a header and a payload chunk per frame, two stream writes and two
 * buffers each, which cost about a quarter of a relayed frame's CPU on the Node host).
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

/** One socket's frames of the current turn. */
export class TurnBatch {
  #sink: BatchSink;
  #texts: string[] = [];
  #lengths: number[] = [];
  #bytes = 0;
  #scheduled = false;
  #flushTurn = () => {
    this.#scheduled = false;
    this.flush();
  };

  #open: () => boolean;

  /** Binds the batch to the socket it writes to; `open` says whether data frames may still go. */
  constructor(sink: BatchSink, open: () => boolean) {
    this.#sink = sink;
    this.#open = open;
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
    process.nextTick(this.#flushTurn);
  }

  /** Writes every frame held now, in order, in one write (nothing when none is held). */
  flush(): void {
    const texts = this.#texts;
    if (texts.length === 0) return;
    if (!this.#open()) return this.clear();
    const lengths = this.#lengths;
    const out = Buffer.allocUnsafe(this.#bytes);
    let at = 0;
    for (let i = 0; i < texts.length; i++) {
      const n = lengths[i];
      out[at] = 0x81; // FIN, text
      if (n < 126) {
        out[at + 1] = n;
        at += 2;
      } else if (n < 0x10000) {
        out[at + 1] = 126;
        out.writeUInt16BE(n, at + 2);
        at += 4;
      } else {
        out[at + 1] = 127;
        out.writeUInt32BE(Math.floor(n / 0x100000000), at + 2);
        out.writeUInt32BE(n >>> 0, at + 6);
        at += 10;
      }
      at += out.write(texts[i], at, n, 'utf8');
    }
    this.clear();
    if (!this.#sink.destroyed && this.#sink.writable !== false) this.#sink.write(out);
  }

  /** Drops every frame held (the socket is gone). */
  clear(): void {
    this.#texts.length = 0;
    this.#lengths.length = 0;
    this.#bytes = 0;
  }
}
