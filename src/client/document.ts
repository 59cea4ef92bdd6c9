/**
 * Documents the client accepts: a string, a TypedDocumentString (a String with a phantom result
 * type, graphql-codegen's `documentMode: 'string'`), or a parsed DocumentNode: its source text
 * when it kept one (`loc.source.body`, as graphql-js `parse` and graphql-tag leave it), else the
 * text graphql-js's printer makes of it (graphql-codegen's client preset emits DocumentNodes
 * without `loc`, and an AST built or transformed in code has none). The printer is imported by
 * name from `graphql`, whose package declares no side effects, so a bundler keeps only the
 * printer and what it calls (visitor, AST kinds, string escaping; what that adds to a bundle:
 * docs/client.md "Size", measured by `examples/client_size.ts`).
 */
import { type DocumentNode, print } from 'graphql';

/**
 * A parsed document typed with its result and variables, structurally the same as
 * `TypedDocumentNode` of `@graphql-typed-document-node/core` (so codegen output is accepted).
 */
export interface SvcTypedDocumentNode<TResult = unknown, TVariables = Record<string, unknown>> {
  readonly kind: 'Document';
  readonly definitions: ReadonlyArray<unknown>;
  readonly loc?: { readonly source: { readonly body: string } };
  /** Phantom: never present at run time. */
  __apiType?: (variables: TVariables) => TResult;
}

/** A typed document string (graphql-codegen client preset, `documentMode: 'string'`). */
export interface SvcTypedDocumentString<TResult = unknown, TVariables = Record<string, unknown>>
  extends String {
  __apiType?: (variables: TVariables) => TResult;
}

/** Anything `request` takes as a document. */
export type SvcDocument<TResult = unknown, TVariables = Record<string, unknown>> =
  | string
  | SvcTypedDocumentNode<TResult, TVariables>
  | SvcTypedDocumentString<TResult, TVariables>;

/**
 * The text of a document: a string as is, a DocumentNode's `loc.source.body` when present, else
 * the DocumentNode printed by graphql-js. Throws TypeError for a value that is none of these
 * (not a string and not an object of kind 'Document').
 */
export function documentText(document: SvcDocument<unknown, never>): string {
  if (typeof document === 'string') return document;
  if (document instanceof String) return document.toString();
  const node = document as SvcTypedDocumentNode | null;
  const body = node?.loc?.source?.body;
  if (typeof body === 'string') return body;
  if (node?.kind === 'Document' && Array.isArray(node.definitions)) {
    return print(node as unknown as DocumentNode);
  }
  throw new TypeError('svc-gateway/client: a document is a string or a DocumentNode');
}
