/**
 * Parse each distinct document text once (SPEC "Order in which a GraphQL body is checked",
 * steps 10-11: "document parses").
 *
 * A bounded LRU keyed by the exact text holds the parsed `DocumentNode`, or the parse
 * failure, so a repeated document (the normal case: the app sends the same few texts)
 * costs one map lookup. Documents are parsed without locations (fewer allocations).
 *
 * @module
 */

import { type DocumentNode, GraphQLError, parse } from 'graphql';
import { LRUCache } from 'lru-cache';

/** A document that did not parse: the parser's sentence. */
export interface ParseFailure {
  parseError: string;
}

/** The result of parsing one text: the document, or why it did not parse. */
export type ParseResult = DocumentNode | ParseFailure;

/** Whether a parse result is a failure. */
export function isParseFailure(v: ParseResult): v is ParseFailure {
  return (v as ParseFailure).parseError !== undefined;
}

/**
 * Bounds of a {@link ParseCache}: `maxEntries` distinct texts, `maxTextBytes` summed text
 * length (UTF-16 code units, about bytes for GraphQL text), and `maxEntryBytes`: a longer
 * text is parsed every time and never cached (its tree would crowd out the app's own).
 */
export interface ParseCacheOptions {
  maxEntries?: number;
  maxTextBytes?: number;
  maxEntryBytes?: number;
}

/** Defaults: 1000 texts, 4 MiB of text, 256 KiB per text. */
export const PARSE_CACHE_DEFAULTS: Readonly<Required<ParseCacheOptions>> = Object.freeze({
  maxEntries: 1000,
  maxTextBytes: 4 * 1024 * 1024,
  maxEntryBytes: 256 * 1024,
});

/**
 * Parses a text with graphql-js (no locations). Never throws: a syntax error, or a
 * document so deeply nested that the parser runs out of stack, becomes a
 * {@link ParseFailure}.
 */
export function parseDocument(text: string): ParseResult {
  try {
    return parse(text, { noLocation: true });
  } catch (err) {
    if (err instanceof GraphQLError) return { parseError: err.message };
    if (err instanceof RangeError) return { parseError: 'The document is nested too deeply.' };
    return { parseError: 'The document could not be parsed.' };
  }
}

/**
 * A bounded LRU of parsed documents keyed by exact text. Parse failures are cached too.
 * `get` never throws. The returned `DocumentNode` is shared: callers must not mutate it.
 */
export class ParseCache {
  readonly #lru: LRUCache<string, { result: ParseResult }>;
  readonly #maxEntryBytes: number;

  /** Creates a cache with the given bounds (see {@link ParseCacheOptions}). */
  constructor(options: ParseCacheOptions = {}) {
    const o = { ...PARSE_CACHE_DEFAULTS, ...options };
    this.#maxEntryBytes = o.maxEntryBytes;
    this.#lru = new LRUCache({
      max: o.maxEntries,
      maxSize: o.maxTextBytes,
      maxEntrySize: o.maxEntryBytes + 1,
      sizeCalculation: (_v, key) => key.length + 1,
    });
  }

  /** The parsed document for `text`, or its parse failure; parses on a miss. */
  get(text: string): ParseResult {
    if (text.length > this.#maxEntryBytes) return parseDocument(text);
    const hit = this.#lru.get(text);
    if (hit) return hit.result;
    const result = parseDocument(text);
    this.#lru.set(text, { result });
    return result;
  }

  /** Number of texts held. */
  get size(): number {
    return this.#lru.size;
  }
}

/** The process-wide cache used when a caller does not pass its own. */
export const sharedParseCache: ParseCache = new ParseCache();
