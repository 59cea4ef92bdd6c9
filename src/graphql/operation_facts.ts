/**
 * What an operation does that does not depend on the request's variables, computed once
 * per parsed operation (SPEC "Order in which a GraphQL body is checked" steps 11-16,
 * "Document checks in detail": root fields follow fragment spreads and ignore aliases).
 *
 * Fragment spreads are resolved here: an unknown fragment, a fragment that spreads itself
 * (directly or not), or selections nested deeper than `maxSelectionDepth` make the
 * operation unanalysable (400 ProxyMalformedQuery), never guessed.
 *
 * @module
 */

import {
  type ConstValueNode,
  type DirectiveNode,
  type FragmentDefinitionNode,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type TypeNode,
  type ValueNode,
} from 'graphql';
import { INTROSPECTION_FIELDS, SLOW_FIELDS } from './lists.ts';
import { type StaticAccountScope, staticAccountScope } from './account_scope.ts';

/**
 * One argument written in the document (of a field, or of a directive: `field` is then
 * `@name`), with its unresolved value.
 */
export interface ArgumentSite {
  field: string;
  argument: string;
  value: ValueNode;
}

/** A declared variable: its named type (list and non-null wrappers removed), its default. */
export interface VariableDeclaration {
  namedType: string;
  defaultValue: ConstValueNode | undefined;
}

/**
 * The variable-independent facts of one operation.
 *
 * - `rootFields`: distinct root field names in document order (aliases ignored, inline
 *   fragments and fragment spreads followed).
 * - `introspectionField`: `__schema`/`__type` if selected anywhere, else null.
 * - `slow`: a root field is one of the slow publish fields.
 * - `depth`: selection nesting (each field, inline fragment and spread counts one level).
 * - `argumentSites`: every argument of the operation and of the fragments it reaches (each
 *   fragment once), directive arguments included.
 * - `accountScope`: the static half of step 14.
 */
export interface OperationFacts {
  rootFields: readonly string[];
  introspectionField: string | null;
  slow: boolean;
  depth: number;
  variables: ReadonlyMap<string, VariableDeclaration>;
  argumentSites: readonly ArgumentSite[];
  accountScope: StaticAccountScope;
}

type Fragments = ReadonlyMap<string, FragmentDefinitionNode>;

const memo = new WeakMap<
  OperationDefinitionNode,
  { limit: number; facts: OperationFacts | string }
>();

/**
 * The facts of `operation` (memoised per operation node and depth limit), or the refusal
 * sentence when the operation cannot be analysed.
 */
export function operationFacts(
  operation: OperationDefinitionNode,
  fragments: Fragments,
  maxSelectionDepth: number,
): OperationFacts | string {
  const hit = memo.get(operation);
  if (hit && hit.limit === maxSelectionDepth) return hit.facts;
  const facts = computeFacts(operation, fragments, maxSelectionDepth);
  memo.set(operation, { limit: maxSelectionDepth, facts });
  return facts;
}

function computeFacts(
  operation: OperationDefinitionNode,
  fragments: Fragments,
  maxDepth: number,
): OperationFacts | string {
  const graph = fragmentGraph(operation.selectionSet, fragments, maxDepth);
  if (typeof graph === 'string') return graph;
  const rootFields = collectRootFields(operation.selectionSet, fragments);
  const argumentSites: ArgumentSite[] = [];
  const found = { introspection: null as string | null };
  collectDirectiveSites(operation.directives, argumentSites);
  collectSites(operation.selectionSet, argumentSites, found);
  for (const fragment of graph.reachable) {
    collectDirectiveSites(fragment.directives, argumentSites);
    collectSites(fragment.selectionSet, argumentSites, found);
  }
  const variables = new Map<string, VariableDeclaration>();
  for (const def of operation.variableDefinitions ?? []) {
    variables.set(def.variable.name.value, {
      namedType: namedType(def.type),
      defaultValue: def.defaultValue,
    });
    collectDirectiveSites(def.directives, argumentSites);
  }
  return {
    rootFields,
    introspectionField: found.introspection,
    slow: rootFields.some((f) => SLOW_FIELDS.has(f)),
    depth: graph.depth,
    variables,
    argumentSites,
    accountScope: staticAccountScope(operation.selectionSet, fragments),
  };
}

function namedType(type: TypeNode): string {
  let t = type;
  while (t.kind !== Kind.NAMED_TYPE) t = t.type;
  return t.name.value;
}

/**
 * Resolves every fragment the selection set reaches, refusing unknown and cyclic fragments
 * and nesting deeper than `maxDepth`. Recursion never goes deeper than `maxDepth` levels.
 */
function fragmentGraph(
  root: SelectionSetNode,
  fragments: Fragments,
  maxDepth: number,
): { reachable: FragmentDefinitionNode[]; depth: number } | string {
  const depthOf = new Map<string, number>();
  const visiting = new Set<string>();
  const reachable: FragmentDefinitionNode[] = [];
  const tooDeep = `The document nests selections deeper than ${maxDepth} levels.`;

  const setDepth = (set: SelectionSetNode, level: number): number | string => {
    if (level > maxDepth) return tooDeep;
    let max = 0;
    for (const sel of set.selections) {
      let d: number | string;
      if (sel.kind === Kind.FIELD) d = sel.selectionSet ? setDepth(sel.selectionSet, level + 1) : 0;
      else if (sel.kind === Kind.INLINE_FRAGMENT) d = setDepth(sel.selectionSet, level + 1);
      else d = fragmentDepth(sel.name.value, level + 1);
      if (typeof d === 'string') return d;
      if (d + 1 > max) max = d + 1;
    }
    return max;
  };

  const fragmentDepth = (name: string, level: number): number | string => {
    const known = depthOf.get(name);
    if (known !== undefined) return level + known > maxDepth + 1 ? tooDeep : known;
    if (visiting.has(name)) return `Fragment ${name} spreads itself.`;
    const fragment = fragments.get(name);
    if (!fragment) return `Unknown fragment ${name}.`;
    visiting.add(name);
    const d = setDepth(fragment.selectionSet, level);
    visiting.delete(name);
    if (typeof d === 'string') return d;
    depthOf.set(name, d);
    reachable.push(fragment);
    return d;
  };

  const depth = setDepth(root, 1);
  if (typeof depth === 'string') return depth;
  return { reachable, depth };
}

/** Distinct root field names of a selection set, following fragments (each once). */
export function collectRootFields(root: SelectionSetNode, fragments: Fragments): string[] {
  const names: string[] = [];
  const seenNames = new Set<string>();
  const seenFragments = new Set<string>();
  const visit = (set: SelectionSetNode) => {
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        const n = sel.name.value;
        if (!seenNames.has(n)) {
          seenNames.add(n);
          names.push(n);
        }
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        visit(sel.selectionSet);
      } else if (!seenFragments.has(sel.name.value)) {
        seenFragments.add(sel.name.value);
        const fragment = fragments.get(sel.name.value);
        if (fragment) visit(fragment.selectionSet);
      }
    }
  };
  visit(root);
  return names;
}

/** Collects the argument sites of one selection set (not entering fragment spreads). */
function collectSites(
  set: SelectionSetNode,
  out: ArgumentSite[],
  found: { introspection: string | null },
): void {
  for (const sel of set.selections) {
    collectDirectiveSites(sel.directives, out);
    if (sel.kind === Kind.FIELD) {
      const field = sel.name.value;
      if (found.introspection === null && INTROSPECTION_FIELDS.has(field)) {
        found.introspection = field;
      }
      for (const arg of sel.arguments ?? []) {
        out.push({ field, argument: arg.name.value, value: arg.value });
      }
      if (sel.selectionSet) collectSites(sel.selectionSet, out, found);
    } else if (sel.kind === Kind.INLINE_FRAGMENT) {
      collectSites(sel.selectionSet, out, found);
    }
  }
}

function collectDirectiveSites(
  directives: readonly DirectiveNode[] | undefined,
  out: ArgumentSite[],
): void {
  if (!directives) return;
  for (const d of directives) {
    for (const arg of d.arguments ?? []) {
      out.push({ field: `@${d.name.value}`, argument: arg.name.value, value: arg.value });
    }
  }
}
