/**
 * The memory budget's step in the GraphQL chain (docs/operations.md "Memory"; not a spec row):
 * after steps 8 and 9 (the batch is within graphqlMaxBatch, no entry carries extensions) and
 * before any document is parsed (steps 10-11), the request reserves what its documents' parsed
 * trees will hold, `memoryDocumentPerChar` bytes a character of query text (the defaults
 * table's measured worst shape). Past the budget: 503 ProxyBusy with retry-after, as at step 5.
 * The body itself was reserved from its first byte (src/http/body.ts).
 */
import type { Step } from './chain.ts';
import type { GraphqlState as S } from './graphql_state.ts';
import { memoryBusy } from '../http/busy.ts';
import { treeBytes } from '../graphql/mod.ts';

/**
 * Bytes the documents of `s` will hold once parsed: per entry, its characters at
 * `memoryDocumentPerChar`, at most what the parser builds before it stops at graphqlMaxTokens
 * (docs/configuration.md "Document checks and fences"): one token past the limit at
 * `memoryDocumentPerToken`.
 */
export function documentsCost(s: S): number {
  const tokens = s.core.config.graphqlMaxTokens + 1;
  let bytes = 0;
  for (const entry of s.body?.entries ?? []) bytes += treeBytes(entry.query.length, tokens);
  return bytes;
}

/** Step 9.5: the documents' trees fit the memory budget, else 503 ProxyBusy. */
export const documentMemory: Step<S> = {
  step: 9.5,
  check: 'the parsed documents fit the memory budget (not a spec row)',
  run: (s) => s.requestState?.reserve(documentsCost(s), true) === false ? memoryBusy() : null,
};
