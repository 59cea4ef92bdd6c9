/**
 * Bodies a host read before the core saw the request, and bodies the core answered from a
 * string, so a host can skip the Web streams on the common path (docs/benchmarks.md "The gateway's
 * own cost": the Node host).
 *
 * - Request side: a host that has already read a small body whole builds the request without a
 *   body and hands the bytes in beside it (`ConnInfo.readAhead`, src/http/request.ts); the door
 *   puts them on the request's state (src/http/request_state.ts), and every reader of the body in
 *   the core (`readCappedBytes` of src/http/body.ts, `RequestState.bodyOf`) reads them.
 * - Answer side: {@link textResponse} builds a Response from a string and remembers the string,
 *   so the Node host writes it with one `end()` instead of reading the Response's stream
 *   ({@link knownText}). The Response itself is complete: any other host reads it as usual.
 *
 * Memory (docs/operations.md "Memory"): a host asks the proxy for room before it reads a body ahead
 * (`SvcProxy.readAhead`), so such a body is counted from its first byte too; without room it
 * leaves the body to the core's read, which reserves or refuses it.
 *
 * The answer side's table is weak: nothing outlives the answer it belongs to.
 */

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

const KNOWN = new WeakMap<Response, string>();

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
