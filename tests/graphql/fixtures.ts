/**
 * Test fixtures for the document analysis: the app's real documents from
 * `data/upstream/operations/*.graphql`, each operation extracted with the fragments it
 * uses (transitively), as the app would send it.
 *
 * @module
 */

import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type DefinitionNode,
  type FragmentDefinitionNode,
  Kind,
  type OperationDefinitionNode,
  parse,
  print,
  type SelectionSetNode,
} from 'graphql';

/** The repository root. */
export const ROOT: string = fileURLToPath(new URL('../../', import.meta.url));
/** The app's operations folder. */
export const OPERATIONS_DIR: string = join(ROOT, 'data', 'upstream', 'operations');
/** The upstream facts file. */
export const FACTS_FILE: string = join(ROOT, 'data', 'upstream', 'facts.json');

/** One real operation: its file, name, printed text and source-formatted text. */
export interface RealOperation {
  file: string;
  name: string;
  /** graphql-js `print` of the operation and its fragments. */
  printed: string;
  /** The same definitions as written in the file (comments inside kept), joined by newlines. */
  source: string;
}

function spreads(set: SelectionSetNode, out: Set<string>): void {
  for (const sel of set.selections) {
    if (sel.kind === Kind.FRAGMENT_SPREAD) out.add(sel.name.value);
    else if (sel.selectionSet) spreads(sel.selectionSet, out);
  }
}

/** The fragments `op` uses, transitively, in first-use order. */
function usedFragments(
  op: OperationDefinitionNode,
  fragments: Map<string, FragmentDefinitionNode>,
): FragmentDefinitionNode[] {
  const order: FragmentDefinitionNode[] = [];
  const seen = new Set<string>();
  const queue: string[] = [];
  const first = new Set<string>();
  spreads(op.selectionSet, first);
  queue.push(...first);
  while (queue.length > 0) {
    const name = queue.shift()!;
    if (seen.has(name)) continue;
    seen.add(name);
    const f = fragments.get(name);
    if (!f) throw new Error(`fixture: unknown fragment ${name}`);
    order.push(f);
    const next = new Set<string>();
    spreads(f.selectionSet, next);
    queue.push(...next);
  }
  return order;
}

/** Every operation of every operations file, extracted with its fragments. */
export function realOperations(): RealOperation[] {
  const out: RealOperation[] = [];
  const files = [...Deno.readDirSync(OPERATIONS_DIR)].filter((e) => e.name.endsWith('.graphql'))
    .map((e) => e.name).sort();
  for (const file of files) {
    const body = Deno.readTextFileSync(join(OPERATIONS_DIR, file));
    const doc = parse(body);
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const d of doc.definitions) {
      if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    }
    for (const d of doc.definitions) {
      if (d.kind !== Kind.OPERATION_DEFINITION) continue;
      const defs: DefinitionNode[] = [d, ...usedFragments(d, fragments)];
      out.push({
        file,
        name: d.name?.value ?? '(anonymous)',
        printed: print({ kind: Kind.DOCUMENT, definitions: defs }),
        source: defs.map((x) => body.slice(x.loc!.start, x.loc!.end)).join('\n\n'),
      });
    }
  }
  return out;
}
