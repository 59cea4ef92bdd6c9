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
 * Selects the operation an entry runs: the one named `operationName` when a name is given
 * (it must exist), else the only one. Returns the refusal sentence (400
 * ProxyMalformedQuery) when there are several and no name, or the name is not present.
 */
export function selectOperation(
  index: DocumentIndex,
  operationName: string | null | undefined,
): OperationDefinitionNode | string {
  if (operationName !== undefined && operationName !== null && operationName !== '') {
    return index.operationsByName.get(operationName) ??
      `The document has no operation named ${operationName}.`;
  }
  if (index.operations.length === 1) return index.operations[0];
  return 'The document defines several operations; name one with operationName.';
}
