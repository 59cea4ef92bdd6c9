/**
 * graphql-transport-ws frames: parse and validate what each leg sends, and re-serialise.
 *
 * Implements SPEC "Events" 1 (a frame that is not one of the protocol's, or lacks a string id
 * where required, closes 4400) and the route table's WS row ("every later frame is
 * re-serialised"): nothing is passed on as received; every frame sent is JSON.stringify of a
 * freshly built object holding only the protocol's fields (graphql-ws PROTOCOL.md).
 *
 * Which side may send which type: browser → connection_init, ping, pong, subscribe, complete;
 * upstream → connection_ack, ping, pong, next, error, complete.
 */

import { DEFAULTS } from '../config/defaults.ts';
import { nestsDeeperThan, tooDeepSentence } from '../http/json_depth.ts';

/** A JSON object (not null, not an array). */
export type JsonObject = Record<string, unknown>;

/** A frame the browser may send, validated. */
export type BrowserMessage =
  | { type: 'connection_init'; payload: JsonObject | null }
  | { type: 'ping' | 'pong'; payload: JsonObject | null }
  | { type: 'subscribe'; id: string; payload: JsonObject }
  | { type: 'complete'; id: string };

/** A frame the upstream may send, validated. */
export type UpstreamMessage =
  | { type: 'connection_ack' | 'ping' | 'pong'; payload: JsonObject | null }
  | { type: 'next'; id: string; payload: JsonObject }
  | { type: 'error'; id: string; payload: unknown[] }
  | { type: 'complete'; id: string };

/** Parse outcome: the message, or the 4400 sentence saying what was wrong (never echoes input). */
export type Parsed<T> = { ok: true; message: T } | { ok: false; reason: string };

/** The 4400 sentences, one per fault. */
export const FRAME_FAULT = {
  binary: 'Binary frames are not part of graphql-transport-ws',
  notJson: 'Frame is not JSON',
  notMessage: 'Frame is not a graphql-transport-ws message',
  wrongSide: 'Frame type is not accepted from this side',
  missingId: 'Frame needs a non-empty string id',
  badPayload: 'Frame payload has the wrong shape',
} as const;

const BROWSER_TYPES = new Set(['connection_init', 'ping', 'pong', 'subscribe', 'complete']);
const UPSTREAM_TYPES = new Set(['connection_ack', 'ping', 'pong', 'next', 'error', 'complete']);
const KNOWN_TYPES = new Set([...BROWSER_TYPES, ...UPSTREAM_TYPES]);
const NEEDS_ID = new Set(['subscribe', 'next', 'error', 'complete']);

/** True for a plain JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Validates the shape shared by both sides; `allowed` is the side's set of types. A frame nested
 * deeper than `maxDepth` levels (the frame's own object is level 1) is refused before it is
 * parsed (src/http/json_depth.ts).
 */
function parseFrame(
  text: string | null,
  allowed: Set<string>,
  maxDepth: number,
): Parsed<JsonObject> {
  if (text === null) return { ok: false, reason: FRAME_FAULT.binary };
  if (nestsDeeperThan(text, maxDepth)) {
    return { ok: false, reason: tooDeepSentence('Frame', maxDepth) };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: FRAME_FAULT.notJson };
  }
  if (!isJsonObject(value) || typeof value.type !== 'string' || !KNOWN_TYPES.has(value.type)) {
    return { ok: false, reason: FRAME_FAULT.notMessage };
  }
  if (!allowed.has(value.type)) return { ok: false, reason: FRAME_FAULT.wrongSide };
  if (NEEDS_ID.has(value.type) && (typeof value.id !== 'string' || value.id === '')) {
    return { ok: false, reason: FRAME_FAULT.missingId };
  }
  return { ok: true, message: value };
}

/** Optional payload of init/ack/ping/pong: an object, or null/absent (read as null). */
function optionalPayload(frame: JsonObject): { ok: true; payload: JsonObject | null } | null {
  if (frame.payload === undefined || frame.payload === null) return { ok: true, payload: null };
  return isJsonObject(frame.payload) ? { ok: true, payload: frame.payload } : null;
}

const badPayload = { ok: false, reason: FRAME_FAULT.badPayload } as const;

/**
 * Parses a browser frame. `text` null means a binary frame (never of the protocol).
 * Refuses (reason for close 4400): binary, nested deeper than `maxDepth` (jsonMaxDepth,
 * docs/configuration.md "Ceilings"), not JSON, unknown type, a server-side type, a
 * missing/empty/non-string id on subscribe or complete, a payload of the wrong shape.
 */
export function parseBrowserFrame(
  text: string | null,
  maxDepth: number = DEFAULTS.jsonMaxDepth,
): Parsed<BrowserMessage> {
  const parsed = parseFrame(text, BROWSER_TYPES, maxDepth);
  if (!parsed.ok) return parsed;
  const frame = parsed.message;
  switch (frame.type) {
    case 'subscribe':
      if (!isJsonObject(frame.payload)) return badPayload;
      return {
        ok: true,
        message: { type: 'subscribe', id: frame.id as string, payload: frame.payload },
      };
    case 'complete':
      return { ok: true, message: { type: 'complete', id: frame.id as string } };
    default: {
      const p = optionalPayload(frame);
      if (!p) return badPayload;
      const type = frame.type as 'connection_init' | 'ping' | 'pong';
      return { ok: true, message: { type, payload: p.payload } };
    }
  }
}

/**
 * Parses an upstream frame. Refuses (the relay then drops the upstream, 1012 to the browser):
 * binary, nested deeper than `maxDepth` (a frame the relay could not safely re-serialise,
 * docs/readings.md "JSON nesting depth"), not JSON, unknown or browser-side type, missing id,
 * next payload not an object, error payload not a non-empty array of objects with a message.
 */
export function parseUpstreamFrame(
  text: string | null,
  maxDepth: number = DEFAULTS.jsonDepthHardMax,
): Parsed<UpstreamMessage> {
  const parsed = parseFrame(text, UPSTREAM_TYPES, maxDepth);
  if (!parsed.ok) return parsed;
  const frame = parsed.message;
  const id = frame.id as string;
  switch (frame.type) {
    case 'next':
      if (!isJsonObject(frame.payload)) return badPayload;
      return { ok: true, message: { type: 'next', id, payload: frame.payload } };
    case 'error': {
      const list = frame.payload;
      const ok = Array.isArray(list) && list.length > 0 &&
        list.every((e) => isJsonObject(e) && typeof e.message === 'string');
      if (!ok) return badPayload;
      return { ok: true, message: { type: 'error', id, payload: list } };
    }
    case 'complete':
      return { ok: true, message: { type: 'complete', id } };
    default: {
      const p = optionalPayload(frame);
      if (!p) return badPayload;
      const type = frame.type as 'connection_ack' | 'ping' | 'pong';
      return { ok: true, message: { type, payload: p.payload } };
    }
  }
}

/** Re-serialises a payload-only frame (ack, ping, pong): `{type}` or `{type, payload}`. */
export function serialiseSignal(
  type: 'connection_init' | 'connection_ack' | 'ping' | 'pong',
  payload: JsonObject | null,
): string {
  return JSON.stringify(payload === null ? { type } : { type, payload });
}

/** The forwarded part of a subscribe payload (SPEC "GraphQL request entry"): never extensions. */
export interface SubscribeEntry {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
}

/** Re-serialises a subscribe frame from the checked entry: query, operationName, variables only. */
export function serialiseSubscribe(id: string, entry: SubscribeEntry): string {
  const payload: JsonObject = { query: entry.query };
  if (typeof entry.operationName === 'string') payload.operationName = entry.operationName;
  if (isJsonObject(entry.variables)) payload.variables = entry.variables;
  return JSON.stringify({ id, type: 'subscribe', payload });
}

/** Re-serialises a complete frame. */
export function serialiseComplete(id: string): string {
  return JSON.stringify({ id, type: 'complete' });
}

/**
 * Builds a next frame around an already serialised payload (the JSON text of the result);
 * `idJson` is the id's JSON text when the caller has it (`JSON.stringify(id)`).
 */
export function serialiseNext(
  id: string,
  payloadJson: string,
  idJson = JSON.stringify(id),
): string {
  return `{"id":${idJson},"type":"next","payload":${payloadJson}}`;
}

/** Builds an error frame from a list of (already re-built) GraphQL errors. */
export function serialiseError(id: string, errors: unknown[]): string {
  return JSON.stringify({ id, type: 'error', payload: errors });
}

/**
 * An in-band refusal on one subscription id: `{id, type:'error', payload:[{message,
 * extensions:{code}}]}` (SPEC "Order in which a GraphQL body is checked", socket paragraph).
 */
export function refusalFrame(id: string, code: string, message: string): string {
  return serialiseError(id, [{ message, extensions: { code } }]);
}

/** Fields of a GraphQL formatted error that travel (graphql-js GraphQLFormattedError). */
const ERROR_FIELDS = ['message', 'locations', 'path', 'extensions'] as const;
/** Fields of an execution result that travel (graphql-ws FormattedExecutionResult). */
const RESULT_FIELDS = ['data', 'errors', 'hasNext', 'extensions'] as const;

/** A fresh copy of one formatted error with only its protocol fields. */
export function rebuildError(error: unknown): JsonObject {
  const out: JsonObject = {};
  if (!isJsonObject(error)) return { message: 'Unknown error' };
  for (const key of ERROR_FIELDS) if (error[key] !== undefined) out[key] = error[key];
  if (typeof out.message !== 'string') out.message = 'Unknown error';
  return out;
}

/** A fresh copy of an execution result with only its protocol fields (errors rebuilt too). */
export function rebuildResult(result: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of RESULT_FIELDS) if (result[key] !== undefined) out[key] = result[key];
  if (Array.isArray(out.errors)) out.errors = out.errors.map(rebuildError);
  return out;
}

/**
 * UTF-8 length in bytes of a string, without allocating (lone surrogates count 3, as
 * TextEncoder writes U+FFFD for them).
 */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
