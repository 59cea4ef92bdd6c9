/**
 * The size of one document, for the cost limits the chain checks right after step 11 (not a
 * spec row: docs/configuration.md "Document checks and fences"; the limits GraphQL Armor and Apollo
 * Router apply).
 *
 * - `depth`: selection nesting of the operation run, fragments followed (each field, inline
 *   fragment and spread counts one level; `OperationFacts.depth`).
 * - `rootFields`: distinct root field names of that operation (aliases ignored, fragments
 *   followed).
 * - `aliases`: fields written with an alias anywhere in the document text.
 * - `directives`: directives written anywhere in the document text.
 * - `tokens`: lexical tokens of the text (punctuators, names, values; comments and the end
 *   marker not counted).
 *
 * @module
 */
import { type DocumentNode, Lexer, Source, TokenKind, visit } from 'graphql';

/** The measures of one document; see the module comment. */
export interface DocumentCost {
  depth: number;
  rootFields: number;
  aliases: number;
  directives: number;
  tokens: number;
}

/** Measures that belong to the text, memoised per parsed document (documents are cached). */
const textual = new WeakMap<
  DocumentNode,
  Pick<DocumentCost, 'aliases' | 'directives' | 'tokens'>
>();

/** Counts the text's aliases, directives and tokens (once per parsed document). */
export function textualCost(
  document: DocumentNode,
  text: string,
): Pick<DocumentCost, 'aliases' | 'directives' | 'tokens'> {
  let hit = textual.get(document);
  if (!hit) {
    hit = { aliases: 0, directives: 0, tokens: countTokens(text) };
    const counts = hit;
    visit(document, {
      Field(node) {
        if (node.alias) counts.aliases++;
      },
      Directive() {
        counts.directives++;
      },
    });
    textual.set(document, hit);
  }
  return hit;
}

/** Lexical tokens of a text that parses (the lexer skips comments, commas and whitespace). */
function countTokens(text: string): number {
  const lexer = new Lexer(new Source(text));
  let count = 0;
  while (lexer.advance().kind !== TokenKind.EOF) count++;
  return count;
}
