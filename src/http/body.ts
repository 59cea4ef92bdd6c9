/**
 * Capped body reading. SPEC "Size and capacity" (the oversize rule).
 */
import { type Refusal, refusal } from './error_codes.ts';
import { prereadBody } from './preread.ts';
import { chargeRequest } from '../memory/requests.ts';
import type { SvcRequest } from './request.ts';

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

/**
 * Reads the whole body, at most `limit` bytes: the bytes (empty when there is no body), or
 * null when it is over `limit` (a declared content-length over it refuses before reading; past
 * it while reading, the rest is dropped and the stream cancelled). Sees a body a host read
 * ahead (src/http/preread.ts). The bytes are charged to the request's memory account
 * (src/memory/requests.ts) until it is answered.
 */
export async function readCappedBytes(
  request: SvcRequest,
  limit: number,
): Promise<Uint8Array<ArrayBuffer> | null> {
  const declared = declaredLength(request);
  if (declared !== null && declared > limit) {
    await request.body?.cancel().catch(() => {});
    return null;
  }
  const preread = prereadBody(request);
  if (preread !== undefined) {
    if (preread.byteLength > limit) return null;
    chargeRequest(request, preread.byteLength);
    return preread as Uint8Array<ArrayBuffer>;
  }
  if (!request.body) return new Uint8Array(0);
  const bytes = await readStreamCapped(request.body, limit);
  if (bytes) chargeRequest(request, bytes.byteLength);
  return bytes;
}

/**
 * Reads a byte stream whole, at most `limit` bytes: the bytes, or null once past `limit` (the
 * reader is cancelled then, and nothing past the limit is kept). Shared by request bodies and
 * upstream answers (src/upstream/outbound.ts).
 */
export async function readStreamCapped(
  stream: ReadableStream<Uint8Array>,
  limit: number,
): Promise<Uint8Array<ArrayBuffer> | null> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      return null;
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
 * Reads the whole body as UTF-8 text, at most `limit` bytes ({@link readCappedBytes}); past the
 * limit, the 413 RequestTooLarge refusal.
 */
export async function readCappedText(
  request: SvcRequest,
  limit: number,
): Promise<{ text: string } | { refused: Refusal }> {
  const bytes = await readCappedBytes(request, limit);
  if (bytes === null) return { refused: tooLarge(limit) };
  return { text: UTF8.decode(bytes) };
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
