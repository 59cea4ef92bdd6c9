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
 *   marker not counted), as the parser read them (`parse_cache.ts`).
 *
 * How early each is bounded: `tokens` while the text is parsed (the parse stops at the first
 * token past graphqlMaxTokens, `parse_cache.ts`), so every other measure is taken on a tree of
 * at most that many tokens. `depth` and `rootFields` belong to the operation run with its
 * fragments followed, so they can only be measured on the tree, by the step-11 analysis that
 * resolves fragments (`operation_facts.ts`, each fragment walked once). `aliases` and
 * `directives` are counted on the tree too: counting them while parsing would refuse a document
 * before step 11 has found it malformed, and the bounded tree makes the count cheap.
 *
 * @module
 */
import { type DocumentNode, visit } from 'graphql';
import { tokensOf } from './parse_cache.ts';

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

/** Counts the text's aliases and directives, and reads its tokens (once per parsed document). */
export function textualCost(
  document: DocumentNode,
  text: string,
): Pick<DocumentCost, 'aliases' | 'directives' | 'tokens'> {
  let hit = textual.get(document);
  if (!hit) {
    hit = { aliases: 0, directives: 0, tokens: tokensOf(document, text) };
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
