/**
 * What reached the sandbox: every HTTP request and every socket, as received, so tests can assert
 * exactly what the gateway sent upstream (and that a refused request sent nothing).
 */
import type { IncomingHttpHeaders } from 'node:http';

/** One GraphQL entry of a `/graphql` body (a batch has several). */
export interface ReceivedOperation {
  /** The entry's `query` text, verbatim ('' when absent or not a string). */
  query: string;
  /** The entry's `operationName` field as sent (null when absent). */
  operationNameField: string | null;
  /** Name of the operation the document selects (null: anonymous, or document unparsable). */
  operationName: string | null;
  /** Root field names of that operation (fragments flattened, aliases ignored, no duplicates). */
  rootFields: string[];
  /** The entry's `variables` as sent (undefined when absent). */
  variables: unknown;
  /** True when the entry had an `extensions` member. */
  hasExtensions: boolean;
}

/** What an upload request carried (POST /api/filestorage/upload/<kind>). */
export interface ReceivedUpload {
  /** 'bot' | 'livechat' | 'plugin' | 'widget' | 'useraccount'. */
  kind: string;
  /** The request content-type header verbatim, e.g. 'multipart/form-data; boundary=----x'. */
  contentType: string;
  /** The multipart boundary parsed from it (null when absent). */
  boundary: string | null;
  /** The `file` part: its file name, byte size, and content-type (null when no such part). */
  file: { name: string; bytes: number; type: string } | null;
  /** The other (text) parts of the form, by name. */
  fields: Record<string, string>;
  /** The id answered (null when the upload was refused or not answered). */
  fileId: string | null;
}

/** One HTTP request, as received (recorded before any switch acts). */
export interface ReceivedRequest {
  /** 1-based arrival order among this sandbox's HTTP requests (reset() restarts it). */
  seq: number;
  method: string;
  /** URL pathname, e.g. '/graphql'. */
  path: string;
  /** URL search including '?', or '' (e.g. '?op=SvcWorkspaceBots'). */
  search: string;
  /** Header names lowercased; a repeated header's values joined with ', '. */
  headers: Record<string, string>;
  /** The body decoded as UTF-8, or null for a multipart body. */
  bodyText: string | null;
  /** The body's length in bytes. */
  bodyBytes: number;
  /** The body parsed as JSON (undefined when it is not JSON). */
  json: unknown;
  /** For `/graphql`: one entry per GraphQL entry of the body (a batch has several); else []. */
  operations: ReceivedOperation[];
  /** For an upload path: what it carried; else null. */
  upload: ReceivedUpload | null;
  /**
   * The answer: `{status}` once written, 'dropped' when the drop switch closed it, 'cut' when the
   * caller ended the request before its body did (recorded with the bytes that came), null before.
   */
  answer: { status: number } | 'dropped' | 'cut' | null;
}

/** One `subscribe` frame received on a socket. */
export interface ReceivedSubscribe {
  id: string;
  payload: {
    query?: string;
    operationName?: string | null;
    variables?: Record<string, unknown> | null;
    extensions?: unknown;
  };
}

/** One upstream WebSocket, as received. */
export interface ReceivedSocket {
  /** 1-based arrival order among this sandbox's sockets. */
  seq: number;
  /** URL pathname of the upgrade, '/graphql'. */
  path: string;
  /** URL search including '?', or ''. */
  search: string;
  /** Upgrade request headers, names lowercased. */
  headers: Record<string, string>;
  /** Negotiated subprotocol ('graphql-transport-ws', or '' when the client offered none fit). */
  protocol: string;
  /** Payload of the connection_init frame (undefined before it, or when the frame had none). */
  initPayload: unknown;
  /** Whether connection_init carried the right `authToken` (null before connection_init). */
  authorized: boolean | null;
  /** Every text frame received, verbatim, in order (all types, including ping/pong). */
  frames: string[];
  /** Every subscribe frame received, parsed, in order. */
  subscribes: ReceivedSubscribe[];
  /** Every frame the sandbox sent, verbatim, except oversized frames: '<oversized N bytes>'. */
  sent: string[];
  /** How it closed; `by` says who initiated; null while open. */
  closed: { code: number; reason: string; by: 'client' | 'sandbox' } | null;
}

/** Lowercased single-string headers from node's IncomingHttpHeaders. */
export function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
