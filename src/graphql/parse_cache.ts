/**
 * Parse each distinct document text once (SPEC "Order in which a GraphQL body is checked",
 * steps 10-11: "document parses").
 *
 * A bounded LRU keyed by the exact text holds the parsed `DocumentNode`, or the parse
 * failure, so a repeated document (the normal case: the app sends the same few texts)
 * costs one map lookup. Documents are parsed without locations (fewer allocations).
 *
 * The token limit (graphqlMaxTokens, docs/configuration.md "Document checks and fences")
 * bounds the parse itself: graphql-js's `maxTokens` stops the parser at the first token past
 * the limit, before the rest of the text is read or any more of the tree is built, so refusing
 * a long document costs the parse of its first `maxTokens` tokens. graphql-js counts what
 * `cost.ts` counts: every lexical token but comments and the end marker.
 *
 * @module
 */

import { type DocumentNode, GraphQLError, Lexer, parse, Source, TokenKind } from 'graphql';
import { LRUCache } from 'lru-cache';
import { DEFAULTS } from '../config/defaults.ts';

/**
 * A document that did not parse: the parser's sentence. `tokenLimit` is set when the parse
 * stopped because the text has more tokens than that limit: nothing past it was read, so
 * whether the rest parses is not known.
 */
export interface ParseFailure {
  parseError: string;
  tokenLimit?: number;
}

/** The result of parsing one text: the document, or why it did not parse. */
export type ParseResult = DocumentNode | ParseFailure;

/** Whether a parse result is a failure. */
export function isParseFailure(v: ParseResult): v is ParseFailure {
  return (v as ParseFailure).parseError !== undefined;
}

/**
 * Bounds of a {@link ParseCache}: `maxEntries` distinct texts; `maxHeldBytes`, what the cached
 * entries are taken to hold in all ({@link heldBytes}: each text and its tree, in bytes); and
 * `maxEntryBytes`, the longest text kept (UTF-16 code units, about bytes for GraphQL text): a
 * longer text is parsed every time and never cached (its tree would crowd out the app's own).
 */
export interface ParseCacheOptions {
  maxEntries?: number;
  maxHeldBytes?: number;
  maxEntryBytes?: number;
}

/**
 * Defaults: 1000 texts, 96 MiB held, 256 KiB per text. The bound is on the trees, not only the
 * texts: at up to `memoryDocumentPerChar` bytes a character, 4 MiB of text could hold over 200 MiB.
 * Every operation of the app's documents (data/upstream/operations: 560 operations, each with
 * the fragments it uses, 2.0 MB of text) is estimated at 73 MiB, so all of them fit.
 */
export const PARSE_CACHE_DEFAULTS: Readonly<Required<ParseCacheOptions>> = Object.freeze({
  maxEntries: 1000,
  maxHeldBytes: 96 * 1024 * 1024,
  maxEntryBytes: 256 * 1024,
});

/**
 * Bytes the parsed tree of a text of `chars` characters and at most `tokens` tokens holds, as the
 * memory count takes it (docs/operations.md "Memory"): `memoryDocumentPerChar` a character, at
 * most `memoryDocumentPerToken` a token. The request's reservation before the parse
 * (src/admission/memory_steps.ts) and the parse cache's size both use it.
 */
export function treeBytes(chars: number, tokens: number): number {
  return Math.min(chars * DEFAULTS.memoryDocumentPerChar, tokens * DEFAULTS.memoryDocumentPerToken);
}

/**
 * What a cached text is taken to hold, in bytes: the text and its parsed tree ({@link treeBytes},
 * with the tree's own token count); for a parse failure, the text and its sentence.
 */
export function heldBytes(text: string, result: ParseResult): number {
  if (isParseFailure(result)) return text.length + result.parseError.length;
  return text.length + treeBytes(text.length, tokensOf(result, text));
}

/** Whether a parse result is a parse stopped at the token limit (see {@link ParseFailure}). */
export function isTokenLimit(v: ParseResult): v is Required<ParseFailure> {
  return (v as ParseFailure).tokenLimit !== undefined;
}

/**
 * Tokens of a parsed document: every lexical token but comments and the end marker. graphql-js
 * 16.11 leaves the count its parser read on the document; `text` is lexed only without it.
 */
export function tokensOf(document: DocumentNode, text: string): number {
  const counted = (document as { tokenCount?: number }).tokenCount;
  if (typeof counted === 'number') return counted;
  const lexer = new Lexer(new Source(text));
  let count = 0;
  while (lexer.advance().kind !== TokenKind.EOF) count++;
  return count;
}

/** The sentence graphql-js 16 throws when a text has more than `limit` tokens. */
function tokenLimitMessage(limit: number): string {
  return `Syntax Error: Document contains more that ${limit} tokens. Parsing aborted.`;
}

/**
 * Parses a text with graphql-js (no locations), reading at most `maxTokens` tokens (none when
 * omitted). Never throws: a syntax error, a document so deeply nested that the parser runs out
 * of stack, or a text past `maxTokens` (`tokenLimit` set) becomes a {@link ParseFailure}.
 */
export function parseDocument(text: string, maxTokens?: number): ParseResult {
  try {
    return parse(text, { noLocation: true, maxTokens });
  } catch (err) {
    if (err instanceof GraphQLError) {
      if (maxTokens !== undefined && err.message === tokenLimitMessage(maxTokens)) {
        return { parseError: err.message, tokenLimit: maxTokens };
      }
      return { parseError: err.message };
    }
    if (err instanceof RangeError) return { parseError: 'The document is nested too deeply.' };
    return { parseError: 'The document could not be parsed.' };
  }
}

/**
 * One cached text: its document, or its syntax failure with the token limit it was parsed
 * under (`Infinity`: none). A document is valid under any limit (its token count is on it); a
 * failure under the limits at least `limit` (the parser failed before reading `limit` tokens).
 */
interface Held {
  result: ParseResult;
  limit: number;
}

/**
 * A bounded LRU of parsed documents keyed by exact text. Syntax failures are cached too; a
 * parse stopped at the token limit is not (the text was refused and is not held), nor a
 * document a later check refused and {@link ParseCache.forget forgot}.
 * `get` never throws. The returned `DocumentNode` is shared: callers must not mutate it.
 */
export class ParseCache {
  readonly #lru: LRUCache<string, Held>;
  readonly #maxEntryBytes: number;

  /** Creates a cache with the given bounds (see {@link ParseCacheOptions}). */
  constructor(options: ParseCacheOptions = {}) {
    const o = { ...PARSE_CACHE_DEFAULTS, ...options };
    this.#maxEntryBytes = o.maxEntryBytes;
    this.#lru = new LRUCache({
      max: o.maxEntries,
      maxSize: o.maxHeldBytes,
      sizeCalculation: (held, key) => Math.max(1, heldBytes(key, held.result)),
    });
  }

  /**
   * The parsed document for `text`, or its parse failure; parses on a miss, reading at most
   * `maxTokens` tokens (none when omitted). A cached document with more tokens than
   * `maxTokens` gives the same failure the parse would (`tokenLimit` set).
   */
  get(text: string, maxTokens?: number): ParseResult {
    const limit = maxTokens ?? Infinity;
    const hit = text.length > this.#maxEntryBytes ? undefined : this.#lru.get(text);
    if (hit && !isParseFailure(hit.result)) {
      if (tokensOf(hit.result, text) <= limit) return hit.result;
      return { parseError: tokenLimitMessage(limit), tokenLimit: limit };
    }
    if (hit && limit >= hit.limit) return hit.result;
    const result = parseDocument(text, maxTokens);
    if (text.length <= this.#maxEntryBytes && !isTokenLimit(result)) {
      this.#lru.set(text, { result, limit });
    }
    return result;
  }

  /** Drops `text` (a document a cost limit refused: nothing keeps its tree alive). */
  forget(text: string): void {
    this.#lru.delete(text);
  }

  /** Number of texts held. */
  get size(): number {
    return this.#lru.size;
  }

  /** What the cached entries are taken to hold, in bytes ({@link heldBytes}). */
  get heldBytes(): number {
    return this.#lru.calculatedSize;
  }
}

/** The process-wide cache used when a caller does not pass its own. */
export const sharedParseCache: ParseCache = new ParseCache();
