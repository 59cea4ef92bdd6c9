/**
 * Capped body reading. SPEC "Size and capacity" (the oversize rule); what a body holds is
 * reserved in the memory budget from its first byte (docs/operations.md "Memory").
 */
import { type Refusal, refusal } from './error_codes.ts';
import { stringEnd } from './json_depth.ts';
import { DEFAULTS } from '../config/defaults.ts';
import { memoryBusy } from './busy.ts';
import type { SvcRequest } from './request.ts';
import type { RequestState } from './request_state.ts';

/** Headers every oversize refusal carries: the caller is told the connection ends. */
export const OVERSIZE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  connection: 'close',
});

/** The 413 RequestTooLarge refusal for a ceiling of `limit` bytes. */
export function tooLarge(limit: number): Refusal {
  return refusal('RequestTooLarge', `The request body is over ${limit} bytes`, {
    ...OVERSIZE_HEADERS,
  });
}

/** The declared content-length, or null when absent or not a number. */
export function declaredLength(request: SvcRequest): number | null {
  const raw = request.headers.get('content-length');
  if (raw === null || !/^\d+$/.test(raw.trim())) return null;
  return Number(raw);
}

/** Why a body was not read whole: past its ceiling, or past the memory budget. */
export type BodyNotRead = 'over' | 'busy';

/**
 * Reads the whole body, at most `limit` bytes: the bytes (empty when there is no body), 'over'
 * when it is over `limit` (a declared content-length over it refuses before reading; past it
 * while reading, the rest is dropped and the stream cancelled), or 'busy' when what it will hold
 * does not fit the memory budget. Sees a body a host read ahead (src/http/preread.ts).
 *
 * Memory (docs/operations.md "Memory"): from the body's first byte the request reserves
 * `perByte` bytes a byte of it (the defaults table's measured figures for what the caller builds
 * from it), its declared content-length at once, or chunk by chunk as a body without one
 * arrives; a reservation that does not fit stops the read ('busy', the stream cancelled, the
 * caller answers 503 ProxyBusy). What is reserved stays charged on `state` until the request is
 * answered (src/http/request_state.ts). `always`: charged, never refused (the admin panel always
 * answers).
 */
export async function readCappedBytes(
  request: SvcRequest,
  state: RequestState,
  limit: number,
  perByte: number = DEFAULTS.memoryBodyBytesPerByte,
  always = false,
): Promise<Uint8Array<ArrayBuffer> | BodyNotRead> {
  const reserve = (bytes: number) => {
    if (always) state.charge(bytes * perByte);
    else return state.reserve(bytes * perByte);
    return true;
  };
  const declared = declaredLength(request);
  if (declared !== null && declared > limit) {
    await request.body?.cancel().catch(() => {});
    return 'over';
  }
  const ahead = state.readAhead;
  if (ahead !== null) {
    const preread = ahead.bytes as Uint8Array<ArrayBuffer>;
    if (preread.byteLength > limit) return 'over';
    // counted by the host's reservation until the answer is sent (src/http/preread.ts)
    if (ahead.counted) return preread;
    return reserve(preread.byteLength) ? preread : 'busy';
  }
  if (!request.body) return new Uint8Array(0);
  if (declared !== null && !reserve(declared)) {
    await request.body.cancel().catch(() => {});
    return 'busy';
  }
  const grow = declared === null ? reserve : undefined;
  return await readStream(request.body, limit, grow);
}

/**
 * Reads a byte stream whole, at most `limit` bytes: the bytes, or null once past `limit` (the
 * reader is cancelled then, and nothing past the limit is kept). Shared by request bodies and
 * upstream answers (src/upstream/outbound.ts). `seen`, when given, is told the size of each chunk
 * as it is kept.
 */
export async function readStreamCapped(
  stream: ReadableStream<Uint8Array>,
  limit: number,
  seen?: (bytes: number) => void,
): Promise<Uint8Array<ArrayBuffer> | null> {
  const grow = seen && ((bytes: number) => {
    seen(bytes);
    return true;
  });
  const read = await readStream(stream, limit, grow);
  return typeof read === 'string' ? null : read;
}

/**
 * {@link readStreamCapped} telling `grow` the size of each chunk as it arrives: 'busy' (the reader
 * cancelled) when it answers false.
 */
async function readStream(
  stream: ReadableStream<Uint8Array>,
  limit: number,
  grow?: (bytes: number) => boolean,
): Promise<Uint8Array<ArrayBuffer> | BodyNotRead> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      return 'over';
    }
    if (grow && !grow(value.byteLength)) {
      await reader.cancel().catch(() => {});
      return 'busy';
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0] as Uint8Array<ArrayBuffer>;
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

const UTF8 = new TextDecoder();

/**
 * Reads the whole body as UTF-8 text, at most `limit` bytes ({@link readCappedBytes}), reserving
 * from its first byte all a JSON body holds at most: its bytes, text and forwarded form
 * (`memoryBodyBytesPerByte` + `memoryJsonPerByte` a byte) and its parsed value at the worst
 * shape's `memoryParsedPerByte`. With the text in hand the parsed share is brought down to
 * {@link parsedJsonCost}, so a later form never needs a new admission (which, refused, would have
 * wasted what was read). Past the limit, the 413 RequestTooLarge refusal; past the memory budget,
 * 503 ProxyBusy with retry-after. `always`: counted, never refused for memory (the admin panel).
 */
export async function readCappedText(
  request: SvcRequest,
  state: RequestState,
  limit: number,
  always = false,
): Promise<{ text: string } | { refused: Refusal }> {
  const bytes = await readCappedBytes(request, state, limit, JSON_BODY_PER_BYTE, always);
  if (bytes === 'over') return { refused: tooLarge(limit) };
  if (bytes === 'busy') return { refused: memoryBusy() };
  const text = UTF8.decode(bytes);
  state.charge(parsedJsonCost(text) - bytes.byteLength * DEFAULTS.memoryParsedPerByte);
  return { text };
}

/**
 * What a JSON body reserves a byte from its first byte (docs/operations.md "Memory"): its bytes,
 * text and forwarded form, and its parsed value at the worst shape's bytes a byte.
 */
export const JSON_BODY_PER_BYTE = DEFAULTS.memoryBodyBytesPerByte + DEFAULTS.memoryJsonPerByte +
  DEFAULTS.memoryParsedPerByte;

/**
 * Bytes the parsed value of the JSON `text` holds at most (docs/operations.md "Memory"): the
 * smaller of `memoryParsedPerByte` a character and `memoryParsedPerMark` a structural mark
 * (`{`, `[`, `,`, `:` outside strings) plus 2 bytes a character (the strings). Both
 * are the worst shapes measured by scripts/bench/representation_cost.mjs, so a body of one long
 * string (a GraphQL document) is counted at its strings, a wide array of objects at its marks.
 */
export function parsedJsonCost(text: string): number {
  const length = text.length;
  let marks = 0;
  let i = 0;
  while (i < length) {
    const c = text.charCodeAt(i++);
    if (c === 0x22) i = stringEnd(text, i - 1);
    else if (c === 0x7b || c === 0x5b || c === 0x2c || c === 0x3a) marks++;
  }
  return Math.min(
    text.length * DEFAULTS.memoryParsedPerByte,
    marks * DEFAULTS.memoryParsedPerMark + text.length * 2,
  );
}

/**
 * A pass-through stream that errors once more than `limit` bytes went
 * through it; `exceeded()` tells afterwards whether that is why it failed.
 * Used to stream uploads to the upstream under the 25 MiB ceiling. `held` is told the size of
 * the chunk passing through (what the pipe holds, src/memory/requests.ts) as it changes.
 */
export function cappedStream(
  body: ReadableStream<Uint8Array>,
  limit: number,
  held?: (delta: number) => void,
): { stream: ReadableStream<Uint8Array>; exceeded: () => boolean } {
  let total = 0;
  let over = false;
  let passing = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      held?.(chunk.byteLength - passing);
      passing = chunk.byteLength;
      total += chunk.byteLength;
      if (total > limit) {
        over = true;
        controller.error(new Error('body over its ceiling'));
        return;
      }
      controller.enqueue(chunk);
    },
  });
  return { stream: body.pipeThrough(counter), exceeded: () => over };
}
