/**
 * The real app documents of data/upstream/operations/, one per operation:
 * the operation's text followed by every fragment it uses (transitively),
 * which is how the app ships them and what the document registry indexes.
 * Used by the demo, the benchmark and the tests.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DefinitionNode, type DocumentNode, Kind, parse, print, visit } from 'graphql';

/** One shipped document. */
export interface AppDocument {
  /** The operation's name. */
  name: string;
  /** query, mutation or subscription. */
  type: string;
  /** The file under data/upstream/operations it came from. */
  file: string;
  /** The document text: the operation, then its fragments. */
  text: string;
}

const OPERATIONS_DIR = new URL('../data/upstream/operations/', import.meta.url).pathname;

function spreadsOf(node: DefinitionNode): string[] {
  const names: string[] = [];
  visit(node, { FragmentSpread: (spread) => void names.push(spread.name.value) });
  return names;
}

/** Every operation of every file, with the fragments it needs (fragments of all files). */
export function loadAppDocuments(dir: string = OPERATIONS_DIR): AppDocument[] {
  const files = readdirSync(dir).filter((f) => f.endsWith('.graphql')).sort();
  const parsed: Array<{ file: string; doc: DocumentNode }> = files.map((file) => ({
    file,
    doc: parse(readFileSync(join(dir, file), 'utf8')),
  }));
  const fragments = new Map<string, DefinitionNode>();
  for (const { doc } of parsed) {
    for (const def of doc.definitions) {
      if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
    }
  }
  const out: AppDocument[] = [];
  for (const { file, doc } of parsed) {
    for (const def of doc.definitions) {
      if (def.kind !== Kind.OPERATION_DEFINITION || !def.name) continue;
      const needed = new Set<string>();
      const queue = spreadsOf(def);
      while (queue.length > 0) {
        const name = queue.pop()!;
        if (needed.has(name) || !fragments.has(name)) continue;
        needed.add(name);
        queue.push(...spreadsOf(fragments.get(name)!));
      }
      const parts = [def, ...[...needed].sort().map((n) => fragments.get(n)!)].map((d) => print(d));
      out.push({ name: def.name.value, type: def.operation, file, text: parts.join('\n\n') });
    }
  }
  return out;
}
