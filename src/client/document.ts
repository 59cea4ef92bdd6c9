/**
 * Documents the client accepts: a string, a TypedDocumentString (a String with a phantom result
 * type, graphql-codegen's `documentMode: 'string'`), or a parsed DocumentNode that kept its
 * source (`loc.source.body`, as graphql-js `parse` and graphql-tag leave it). The client carries
 * no GraphQL printer: graphql-ws is its only runtime dependency.
 */

/**
 * A parsed document typed with its result and variables, structurally the same as
 * `TypedDocumentNode` of `@graphql-typed-document-node/core` (so codegen output is accepted).
 */
export interface SvcTypedDocumentNode<TResult = unknown, TVariables = Record<string, unknown>> {
  readonly kind: 'Document';
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
 * The text of a document. Throws TypeError for a DocumentNode without `loc.source.body`
 * (print it first, or use codegen's `documentMode: 'string'`).
 */
export function documentText(document: SvcDocument<unknown, never>): string {
  if (typeof document === 'string') return document;
  if (document instanceof String) return document.toString();
  const body = (document as SvcTypedDocumentNode).loc?.source?.body;
  if (typeof body === 'string') return body;
  throw new TypeError(
    'svc-gateway/client: a DocumentNode without loc.source.body cannot be sent; pass its text',
  );
}
