/**
 * The GraphQL request entry: SPEC "GraphQL request entry" and steps 7-9 of
 * "Order in which a GraphQL body is checked".
 */
import { type Refusal, refusal } from '../http/error_codes.ts';

/** One entry as the caller sent it (query checked to be a string). */
export interface GraphqlEntry {
  query: string;
  operationName?: unknown;
  variables?: unknown;
  /**
   * Whether `extensions` carries something: present with a value other than `null` or an empty
   * object (docs/readings.md "Readings of the spec's rules": empty `extensions` read as absent).
   */
  hasExtensions: boolean;
}

/** The body: one entry or a batch. */
export interface GraphqlBody {
  entries: GraphqlEntry[];
  batch: boolean;
}

const malformed = (why: string): Refusal => refusal('ProxyMalformedQuery', why);

/**
 * Whether an entry's `extensions` value carries something. SPEC "GraphQL request entry" says
 * extensions "must be absent; presence is refused"; `null` and `{}` carry nothing and nothing of
 * `extensions` is ever forwarded, so they are read as absent (Apollo Client's GraphQLWsLink sends
 * `extensions: {}` in every subscribe). Anything else, `[]` and `0` included, is present.
 */
export function carriesExtensions(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'object' || Array.isArray(value)) return true;
  return Object.keys(value).length > 0;
}

function entryOf(value: unknown): GraphqlEntry | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  if (typeof record.query !== 'string') return null;
  return {
    query: record.query,
    operationName: record.operationName,
    variables: record.variables,
    hasExtensions: carriesExtensions(record.extensions),
  };
}

/** Step 7: JSON with a string query in every entry, else 400 ProxyMalformedQuery. */
export function parseBody(text: string): GraphqlBody | Refusal {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return malformed('The body is not JSON');
  }
  const batch = Array.isArray(json);
  const items = batch ? json as unknown[] : [json];
  if (items.length === 0) return malformed('The batch is empty');
  const entries: GraphqlEntry[] = [];
  for (const item of items) {
    const entry = entryOf(item);
    if (!entry) return malformed('Every entry needs a string query');
    entries.push(entry);
  }
  return { entries, batch };
}

/** Step 7 for the socket: a subscribe payload is one entry. */
export function parsePayload(payload: unknown): GraphqlBody | Refusal {
  const entry = entryOf(payload);
  return entry ? { entries: [entry], batch: false } : malformed('The payload needs a string query');
}

/** Step 8: at most `max` entries, else 413 BatchTooLarge. */
export function checkBatchSize(body: GraphqlBody, max: number): Refusal | null {
  if (body.entries.length <= max) return null;
  return refusal('BatchTooLarge', `A batch may carry at most ${max} operations`);
}

/**
 * The refusal's sentence: what usually sends extensions and how to turn it off. Apollo Client 4's
 * HttpLink and BatchHttpLink add `extensions.clientLibrary` by default ("enhanced client
 * awareness").
 */
export const EXTENSIONS_SENTENCE = 'Request extensions are not forwarded; remove them. ' +
  'Apollo Client adds extensions.clientLibrary by default: set includeExtensions: false on ' +
  'HttpLink or BatchHttpLink, or enhancedClientAwareness: { transport: false } on the client';

/** Step 9: no entry carries extensions, else 400 ProxyExtensionsUnsupported. */
export function checkNoExtensions(body: GraphqlBody): Refusal | null {
  if (!body.entries.some((e) => e.hasExtensions)) return null;
  return refusal('ProxyExtensionsUnsupported', EXTENSIONS_SENTENCE);
}

/** Variables as an object (absent or null: {}), or a refusal for any other shape. */
export function variablesOf(entry: GraphqlEntry): Record<string, unknown> | Refusal {
  const v = entry.variables;
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) return malformed('variables must be an object');
  return v as Record<string, unknown>;
}
