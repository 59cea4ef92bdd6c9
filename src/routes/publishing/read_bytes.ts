/**
 * Reads a request body into memory under a ceiling (SPEC "Ceilings": media file 25 MiB). A
 * declared content-length over the ceiling refuses before reading; past it while reading, the
 * rest is dropped (stream cancelled).
 */
import { declaredLength } from '../../http/body.ts';

/** The whole body (empty when none), or null when it is over `limit` bytes. */
export async function readCappedBytes(
  request: Request,
  limit: number,
): Promise<Uint8Array<ArrayBuffer> | null> {
  const declared = declaredLength(request);
  if (declared !== null && declared > limit) {
    await request.body?.cancel().catch(() => {});
    return null;
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
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
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
