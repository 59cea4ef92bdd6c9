/**
 * The upstream schema (`data/upstream/schema.graphql`), built once per process, and a small
 * parse/validate cache so repeated documents (benchmarks) cost one lookup.
 */
import {
  buildSchema,
  type DocumentNode,
  getOperationAST,
  GraphQLError,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  parse,
  type SelectionSetNode,
  validate,
} from 'graphql';
import { upstreamSchemaSdl } from './schema_sdl.ts';

let cachedSchema: GraphQLSchema | null = null;

/** The upstream schema, built on first call and cached for the process. */
export function upstreamSchema(): GraphQLSchema {
  cachedSchema ??= buildSchema(upstreamSchemaSdl());
  return cachedSchema;
}

/** A parsed and validated document, or the errors graphql-js answers for it. */
export type Prepared =
  | { ok: true; document: DocumentNode }
  | { ok: false; stage: 'parse' | 'validate'; errors: readonly GraphQLError[] };

const MAX_CACHED = 2000;
const prepared = new Map<string, Prepared>();

/** Parses and validates `query` against the upstream schema (cached by query text). */
export function prepare(query: string): Prepared {
  const hit = prepared.get(query);
  if (hit) return hit;
  let result: Prepared;
  try {
    const document = parse(query);
    const errors = validate(upstreamSchema(), document);
    result = errors.length ? { ok: false, stage: 'validate', errors } : { ok: true, document };
  } catch (error) {
    const syntax = error instanceof GraphQLError ? error : new GraphQLError(String(error));
    result = { ok: false, stage: 'parse', errors: [syntax] };
  }
  if (prepared.size >= MAX_CACHED) prepared.clear();
  prepared.set(query, result);
  return result;
}

/** Name and root fields of the operation a document selects (for recording and switches). */
export interface OperationInfo {
  operationName: string | null;
  rootFields: string[];
}

/**
 * Reads the selected operation's name and root field names (fragments flattened, aliases
 * ignored). Never throws: an unparsable document gives `{operationName: null, rootFields: []}`.
 */
export function operationInfo(query: string, operationName?: string | null): OperationInfo {
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch {
    return { operationName: null, rootFields: [] };
  }
  const operation = getOperationAST(document, operationName ?? undefined);
  if (!operation) return { operationName: null, rootFields: [] };
  return {
    operationName: operation.name?.value ?? null,
    rootFields: rootFieldsOf(document, operation),
  };
}

function rootFieldsOf(document: DocumentNode, operation: OperationDefinitionNode): string[] {
  const fragments = new Map<string, SelectionSetNode>();
  for (const def of document.definitions) {
    if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def.selectionSet);
  }
  const names = new Set<string>();
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode) => {
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) names.add(sel.name.value);
      else if (sel.kind === Kind.INLINE_FRAGMENT) walk(sel.selectionSet);
      else if (!seen.has(sel.name.value)) {
        seen.add(sel.name.value);
        const target = fragments.get(sel.name.value);
        if (target) walk(target);
      }
    }
  };
  walk(operation.selectionSet);
  return [...names];
}
