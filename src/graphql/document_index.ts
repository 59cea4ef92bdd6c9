/**
 * Index a parsed document and select the operation an entry runs (SPEC "GraphQL request
 * entry": "the forwarded operation name comes from the parsed document, never from the
 * request"; step 11 "document parses and analysis completes").
 *
 * @module
 */

import {
  type DocumentNode,
  type FragmentDefinitionNode,
  Kind,
  type OperationDefinitionNode,
} from 'graphql';

/**
 * The operations and fragments of one document. `problem` is set when the document is not
 * one the analysis can trust: a definition that is not an operation or a fragment, two
 * fragments or two operations of the same name, or an anonymous operation beside others.
 */
export interface DocumentIndex {
  operations: readonly OperationDefinitionNode[];
  operationsByName: ReadonlyMap<string, OperationDefinitionNode>;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  problem: string | null;
}

const indexes = new WeakMap<DocumentNode, DocumentIndex>();

/** Indexes a document once (memoised per document object; documents come from the cache). */
export function indexDocument(document: DocumentNode): DocumentIndex {
  let index = indexes.get(document);
  if (!index) {
    index = buildIndex(document);
    indexes.set(document, index);
  }
  return index;
}

function buildIndex(document: DocumentNode): DocumentIndex {
  const operations: OperationDefinitionNode[] = [];
  const operationsByName = new Map<string, OperationDefinitionNode>();
  const fragments = new Map<string, FragmentDefinitionNode>();
  let problem: string | null = null;
  for (const def of document.definitions) {
    if (def.kind === Kind.OPERATION_DEFINITION) {
      operations.push(def);
      const name = def.name?.value;
      if (name === undefined) continue;
      if (operationsByName.has(name)) problem ??= `The document defines operation ${name} twice.`;
      operationsByName.set(name, def);
    } else if (def.kind === Kind.FRAGMENT_DEFINITION) {
      const name = def.name.value;
      if (fragments.has(name)) problem ??= `The document defines fragment ${name} twice.`;
      fragments.set(name, def);
    } else {
      problem ??= 'The document may contain only operations and fragments.';
    }
  }
  if (operations.length === 0) problem ??= 'The document defines no operation.';
  if (operations.length > 1 && operations.some((op) => !op.name)) {
    problem ??= 'An anonymous operation must be the only operation in its document.';
  }
  return { operations, operationsByName, fragments, problem };
}

/**
 * Selects the operation an entry runs. A document defining one operation runs that one
 * whatever `operationName` says (SPEC "GraphQL request entry": the forwarded name comes
 * from the parsed document, never from the request), so the forwarded name is always the
 * document's own. A document defining several needs `operationName` to pick one of them;
 * returns the refusal sentence (400 ProxyMalformedQuery) when no name is given or the
 * document has no operation of that name (nothing is guessed).
 */
export function selectOperation(
  index: DocumentIndex,
  operationName: string | null | undefined,
): OperationDefinitionNode | string {
  if (index.operations.length === 1) return index.operations[0];
  if (operationName === undefined || operationName === null || operationName === '') {
    return 'The document defines several operations; name one with operationName.';
  }
  return index.operationsByName.get(operationName) ??
    `The document defines several operations and none named ${operationName}.`;
}
