/**
 * The document registry (SPEC "Document checks in detail", step 10: "each document is one
 * the app ships (when a registry exists)").
 *
 * Built at startup from the app's documents. Each document must define exactly one
 * operation (fragments beside it are fine). It is indexed by its exact text and by a
 * sha256 (hex) of the text with whitespace, line breaks, commas and comments stripped:
 * the text's tokens concatenated with nothing between them, strings kept as written
 * (a `#` or a space inside a string is content, not a comment or whitespace). A match
 * forwards the record's own text and its own operation name.
 *
 * @module
 */

import { createHash } from 'node:crypto';
import {
  GraphQLError,
  Kind,
  Lexer,
  type OperationDefinitionNode,
  Source,
  TokenKind,
} from 'graphql';
import { type Refusal, refusal } from '../http/error_codes.ts';
import { isParseFailure, isTokenLimit, parseDocument } from './parse_cache.ts';
import type { GraphQLEntry } from './types.ts';

/** A registered document: its exact text and its operation's name (null if anonymous). */
export interface RegistryRecord {
  text: string;
  operationName: string | null;
}

/** The registry: `lookup` by text (exact, then normalised key); `size` distinct documents. */
export interface Registry {
  lookup(text: string): RegistryRecord | null;
  readonly size: number;
}

/** Thrown by {@link buildRegistry} at startup; the message names the offending document. */
export class RegistryError extends Error {
  override name = 'RegistryError';
}

/**
 * The normalised key of a text: sha256 hex of its tokens joined with nothing between them
 * (whitespace, line breaks, commas and comments removed; strings kept as written). Throws
 * a `GraphQLError` when the text does not lex.
 */
export function registryKey(text: string): string {
  return boundedKey(text, Infinity) as string;
}

/**
 * {@link registryKey}, or null as soon as the stripped text is longer than `maxLength`
 * characters: no registry key of a longer stripped text can match, so a long document is lexed
 * no further than the longest registered one.
 */
function boundedKey(text: string, maxLength: number): string | null {
  const lexer = new Lexer(new Source(text));
  const hash = createHash('sha256');
  let length = 0;
  for (let t = lexer.advance(); t.kind !== TokenKind.EOF; t = lexer.advance()) {
    length += t.end - t.start;
    if (length > maxLength) return null;
    hash.update(text.slice(t.start, t.end));
  }
  return hash.digest('hex');
}

/** A short label of a document for startup errors (its first line, trimmed). */
function label(text: string): string {
  const first = text.trim().split('\n', 1)[0] ?? '';
  return first.length > 80 ? `${first.slice(0, 77)}...` : first;
}

/** The length of a text's tokens joined with nothing between them (what its key hashes). */
function strippedLength(text: string): number {
  const lexer = new Lexer(new Source(text));
  let length = 0;
  for (let t = lexer.advance(); t.kind !== TokenKind.EOF; t = lexer.advance()) {
    length += t.end - t.start;
  }
  return length;
}

/** The semantic form of a text: its tokens separated by one space (no comments, commas). */
function canonical(text: string): string {
  const lexer = new Lexer(new Source(text));
  const parts: string[] = [];
  for (let t = lexer.advance(); t.kind !== TokenKind.EOF; t = lexer.advance()) {
    parts.push(text.slice(t.start, t.end));
  }
  return parts.join(' ');
}

/**
 * Builds the registry from the app's documents.
 *
 * Throws {@link RegistryError} when a document does not parse, defines no operation or
 * more than one, or when two different documents share a key (two texts whose tokens
 * differ but whose stripped text is the same, e.g. `{ a b }` and `{ ab }`). The same
 * document given twice, or twice with different spacing or comments, is one record.
 */
export function buildRegistry(operations: readonly string[]): Registry {
  const byText = new Map<string, RegistryRecord>();
  const byKey = new Map<string, { record: RegistryRecord; canonical: string }>();
  let longestKey = 0;
  for (const text of operations) {
    if (typeof text !== 'string') throw new RegistryError('A registry document is not a string.');
    if (byText.has(text)) continue;
    const doc = parseDocument(text);
    if (isParseFailure(doc)) {
      throw new RegistryError(
        `Registry document "${label(text)}" does not parse: ${doc.parseError}`,
      );
    }
    const ops = doc.definitions.filter((d): d is OperationDefinitionNode =>
      d.kind === Kind.OPERATION_DEFINITION
    );
    if (ops.length !== 1) {
      throw new RegistryError(
        `Registry document "${
          label(text)
        }" defines ${ops.length} operations; each must define exactly one.`,
      );
    }
    const record: RegistryRecord = { text, operationName: ops[0].name?.value ?? null };
    const key = registryKey(text);
    const form = canonical(text);
    const other = byKey.get(key);
    if (other && other.canonical !== form) {
      throw new RegistryError(
        `Registry documents "${label(other.record.text)}" and "${
          label(text)
        }" are different operations sharing a key.`,
      );
    }
    byText.set(text, record);
    if (!other) byKey.set(key, { record, canonical: form });
    longestKey = Math.max(longestKey, strippedLength(text));
  }
  return {
    size: byKey.size,
    lookup(text: string): RegistryRecord | null {
      const exact = byText.get(text);
      if (exact) return exact;
      if (byKey.size === 0) return null;
      let key: string | null;
      try {
        key = boundedKey(text, longestKey);
      } catch (err) {
        if (err instanceof GraphQLError) return null;
        throw err;
      }
      return key === null ? null : byKey.get(key)?.record ?? null;
    },
  };
}

/**
 * Step 10 for one entry. No registry (`undefined`/`null`): the entry passes unchanged. A
 * match: the entry with the record's own `query` and `operationName` (variables kept). No
 * match: 400 ProxyMalformedQuery when the text does not parse, else 403
 * OperationNotInRegistry (an empty registry refuses every document).
 *
 * The parse that tells the two apart reads at most `maxTokens` tokens (graphqlMaxTokens) and is
 * not cached (the text is refused either way). A text past the limit is not one the app ships,
 * whether or not the rest of it would parse: 403 OperationNotInRegistry (docs/readings.md).
 */
export function registryCheck(
  registry: Registry | null | undefined,
  entry: GraphQLEntry,
  maxTokens?: number,
): { entry: GraphQLEntry } | Refusal {
  if (!registry) return { entry };
  const record = typeof entry.query === 'string' ? registry.lookup(entry.query) : null;
  if (record) {
    const next: GraphQLEntry = { query: record.text, operationName: record.operationName };
    if (entry.variables !== undefined) next.variables = entry.variables;
    return { entry: next };
  }
  const parsed = typeof entry.query === 'string' ? parseDocument(entry.query, maxTokens) : null;
  if (parsed === null || (isParseFailure(parsed) && !isTokenLimit(parsed))) {
    return refusal('ProxyMalformedQuery', 'The document does not parse.');
  }
  return refusal(
    'OperationNotInRegistry',
    'This document is not one the app ships, so this proxy does not forward it.',
  );
}
