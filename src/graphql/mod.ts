/**
 * Document analysis: the public API of `src/graphql/` (SPEC "Order in which a GraphQL body
 * is checked" steps 10-17, "Document checks in detail", "Error envelope", "Resource binding
 * states"). Pure code, no I/O.
 *
 * Typical use in the check chain, per entry of a body:
 *
 * ```ts
 * const r = registryCheck(registry, entry);          // step 10 (registry may be undefined)
 * if ('code' in r) refuse(r);
 * const a = analyzeEntry(r.entry);                   // step 11
 * if (isAnalysisFailure(a)) refuse(a);               // 400 ProxyMalformedQuery
 * // steps 12-17: introspection(a), accountOperation(a), ... (src/admission/steps.ts orders them)
 * // then: a.bots (strings after step 17), a.resources, a.slow, a.operationName
 * ```
 *
 * On the answer: `scrubAnswerText` / `scrubErrors` / `scrubCloseReason`, and
 * `idsInAnswer` for the resource fence.
 *
 * @module
 */

export type {
  AccountScope,
  Analysis,
  AnalysisFailure,
  BotReference,
  GraphQLEntry,
  OperationType,
  ResourceReference,
} from './types.ts';
export { isAnalysisFailure } from './types.ts';
export {
  analyzeBody,
  analyzeEntries,
  analyzeEntry,
  type AnalyzeOptions,
  type BodyAnalysis,
  type BodyAnalyzeOptions,
} from './analysis.ts';
export {
  heldBytes,
  PARSE_CACHE_DEFAULTS,
  ParseCache,
  type ParseCacheOptions,
  parseDocument,
  type ParseFailure,
  sharedParseCache,
  treeBytes,
} from './parse_cache.ts';
export {
  accountOperation,
  accountScope,
  accountStructure,
  allowlist,
  botsAreStrings,
  type DocumentCheck,
  introspection,
} from './checks.ts';
export { GENERATED_ALLOWLIST, resolveAllowlist } from './allowlist.ts';
export {
  buildRegistry,
  type Registry,
  registryCheck,
  RegistryError,
  registryKey,
  type RegistryRecord,
} from './registry.ts';
export { errorCodes, scrubAnswerText, scrubCloseReason, scrubErrors } from './scrub.ts';
export { idsInAnswer, MAX_IDS_LEARNED_PER_ANSWER } from './learn.ts';
export { ANALYSIS_LIMITS, type AnalysisLimits } from './lists.ts';
export type { DocumentCost } from './cost.ts';
