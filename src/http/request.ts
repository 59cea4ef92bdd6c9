/**
 * The one request shape every host hands the core (`SvcProxy.serve`, `upgrade`): what the door,
 * the checks before any route and the GraphQL route read of an incoming HTTP request (SPEC "Checks
 * before any route", "Order in which a GraphQL body is checked"): the method, the absolute URL,
 * header values by name, and the body. A Web `Request` is one; the Node host builds a lighter one
 * for the common path (hosts/node_http/lean.ts, docs/benchmarks.md "The gateway's own cost") so
 * that path needs no Web Request, Headers or stream. Beside it, {@link ConnInfo}: what the host
 * knows that the request does not say.
 */

/** Header values by (case-insensitive) name; repeated headers joined with ", " as Web Headers do. */
export interface HeaderReader {
  get(name: string): string | null;
}

/**
 * Aborts once when the caller goes away before its answer is written (the browser aborted, its
 * connection closed). A Web Request's `signal` is one (Deno.serve aborts it when the connection
 * closes); the node:http hosts (Node, and the Deno host on Deno) build one over the node response
 * (hosts/node_http/caller_signal.ts). The core hands it to the upstream call, which it cancels
 * (docs/operations.md "Faults": an aborted call must not hold its in-flight slot until the
 * deadline).
 */
export interface CallerSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** The request as the core's GraphQL route and host/origin checks read it. */
export interface SvcRequest {
  /** Upper-case method, e.g. "POST". */
  readonly method: string;
  /** The absolute URL, e.g. "http://127.0.0.1:8000/svc/graphql?x=1". */
  readonly url: string;
  readonly headers: HeaderReader;
  /**
   * The body stream; null when there is none or when the host read it ahead and hands the bytes
   * in beside the request ({@link ConnInfo.readAhead}, src/http/preread.ts).
   */
  readonly body: ReadableStream<Uint8Array> | null;
  /** Aborts when the caller goes away (absent: the host cannot tell). */
  readonly signal?: CallerSignal;
}

/**
 * A body a host read whole before handing the request in (its request then carries no body):
 * `bytes`, and `counted`: the host reserved them in the memory budget before it read them
 * (`SvcProxy.readAhead`) and holds that reservation until the answer is sent, so the core does
 * not count them again.
 */
export interface ReadAhead {
  readonly bytes: Uint8Array;
  readonly counted: boolean;
}

/** What a host knows about the request beyond the request itself: its connection, its body. */
export interface ConnInfo {
  /** The peer's address (IP), when known. */
  remoteAddress?: string;
  /**
   * The body the host read whole before handing the request in (the request then carries no
   * body): at most `PREREAD_MAX_BYTES` declared (src/http/preread.ts), every reader in the
   * core reads these bytes; `counted`: the host holds room for them from `SvcProxy.readAhead`.
   */
  readAhead?: ReadAhead;
}
