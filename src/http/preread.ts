/**
 * Bodies a host reads before the core sees the request, so a host can skip the Web streams on the
 * common path (docs/benchmarks.md "The gateway's own cost": the Node host). A host that has read a
 * small body whole builds the request without a body and hands the bytes in beside it
 * (`ConnInfo.readAhead`, src/http/request.ts); the door puts them on the request's state
 * (src/http/request_state.ts), and every reader of the body in the core (`readCappedBytes` of
 * src/http/body.ts, `RequestState.bodyOf`) reads them.
 *
 * Memory (docs/operations.md "Memory"): a host asks the proxy for room before it reads a body ahead
 * (`SvcProxy.readAhead`), so such a body is counted from its first byte too; without room it
 * leaves the body to the core's read, which reserves or refuses it.
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
