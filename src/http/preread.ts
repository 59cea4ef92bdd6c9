/**
 * Bodies a host read before the core saw the request, and bodies the core answered from a
 * string, so a host can skip the Web streams on the common path (docs/benchmarks.md "The gateway's
 * own cost": the Node host).
 *
 * - Request side: a host that has already read a small body whole builds the Request without a
 *   body and registers the bytes with {@link withPrereadBody}; every reader in the core goes
 *   through {@link requestBodyOf} or `readCappedBytes` (src/http/body.ts), which see them.
 * - Answer side: {@link textResponse} builds a Response from a string and remembers the string,
 *   so the Node host writes it with one `end()` instead of reading the Response's stream
 *   ({@link knownText}). The Response itself is complete: any other host reads it as usual.
 *
 * Memory (docs/operations.md "Memory"): a host asks the proxy for room before it reads a body ahead
 * (`SvcProxy.readAhead`), so such a body is counted from its first byte too; without room it
 * leaves the body to the core's read, which reserves or refuses it.
 *
 * The tables are weak: nothing outlives the request or answer it belongs to.
 */

import type { SvcRequest } from './request.ts';

/**
 * Bodies that declare at most this many bytes (64 KiB) a host may read whole before the core
 * sees the request: every refusal before step 6 then comes after a read this small, never after
 * a large one (SPEC "Size and capacity": past the ceilings nothing is buffered).
 */
export const PREREAD_MAX_BYTES = 64 * 1024;

/** Whether `contentLength` (a header value, or null) declares a body a host may read ahead. */
export function mayPreread(contentLength: string | null | undefined): boolean {
  return contentLength != null && Number(contentLength) <= PREREAD_MAX_BYTES;
}

const PREREAD = new WeakMap<SvcRequest, Uint8Array>();
const COUNTED = new WeakSet<SvcRequest>();
const KNOWN = new WeakMap<Response, string>();

/**
 * Registers `bytes` as the body of `request` (built without one); returns the request. `counted`:
 * the host reserved them in the memory budget before it read them (`SvcProxy.readAhead`) and
 * holds that reservation until the answer is sent, so the core does not count them again.
 */
export function withPrereadBody<R extends SvcRequest>(
  request: R,
  bytes: Uint8Array,
  counted = false,
): R {
  PREREAD.set(request, bytes);
  if (counted) COUNTED.add(request);
  return request;
}

/** Whether the body a host read ahead for `request` is counted by the host's reservation. */
export function prereadCounted(request: SvcRequest): boolean {
  return COUNTED.has(request);
}

/** The bytes a host read ahead for `request`, if any. */
export function prereadBody(request: SvcRequest): Uint8Array | undefined {
  return PREREAD.get(request);
}

/** The body as a stream: the request's own, or one over the bytes read ahead; null when none. */
export function requestBodyOf(request: SvcRequest): ReadableStream<Uint8Array> | null {
  const bytes = PREREAD.get(request);
  if (bytes === undefined) return request.body;
  return new Blob([bytes as Uint8Array<ArrayBuffer>]).stream();
}

/** A Response over `text` whose text a host can read back without the stream. */
export function textResponse(text: string, init: ResponseInit): Response {
  const response = new Response(text, init);
  KNOWN.set(response, text);
  return response;
}

/** The text `response` was built from by {@link textResponse}, while its body is unread. */
export function knownText(response: Response): string | undefined {
  return response.bodyUsed ? undefined : KNOWN.get(response);
}
