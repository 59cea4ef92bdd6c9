/**
 * Capped body reading. SPEC "Size and capacity" (the oversize rule).
 */
import { type Refusal, refusal } from './error_codes.ts';

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
export function declaredLength(request: Request): number | null {
  const raw = request.headers.get('content-length');
  if (raw === null || !/^\d+$/.test(raw.trim())) return null;
  return Number(raw);
}

/**
 * Reads the whole body as UTF-8 text, at most `limit` bytes. Past the limit it
 * stops reading (the rest is dropped, the stream cancelled) and answers the
 * 413 refusal. A declared content-length over the limit refuses before reading.
 */
export async function readCappedText(
  request: Request,
  limit: number,
): Promise<{ text: string } | { refused: Refusal }> {
  const declared = declaredLength(request);
  if (declared !== null && declared > limit) {
    await request.body?.cancel().catch(() => {});
    return { refused: tooLarge(limit) };
  }
  if (!request.body) return { text: '' };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      return { refused: tooLarge(limit) };
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { text: new TextDecoder().decode(bytes) };
}

/**
 * A pass-through stream that errors once more than `limit` bytes went
 * through it; `exceeded()` tells afterwards whether that is why it failed.
 * Used to stream uploads to the upstream under the 25 MiB ceiling.
 */
export function cappedStream(
  body: ReadableStream<Uint8Array>,
  limit: number,
): { stream: ReadableStream<Uint8Array>; exceeded: () => boolean } {
  let total = 0;
  let over = false;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
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
