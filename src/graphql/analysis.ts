/**
 * Document analysis of one GraphQL request entry (SPEC "Order in which a GraphQL body is
 * checked" step 11: "document parses and analysis completes", and the data steps 12-17
 * and the fences read; "Document checks in detail").
 *
 * `analyzeEntry` never throws: anything it cannot decide is an {@link AnalysisFailure}
 * (400 ProxyMalformedQuery), never a guess. Parsing and the variable-independent facts of
 * each operation are cached; per request only the argument values are walked.
 *
 * @module
 */

import { indexDocument, selectOperation } from './document_index.ts';
import { textualCost } from './cost.ts';
import { ANALYSIS_LIMITS, type AnalysisLimits, RESOURCE_ID_ARGUMENTS } from './lists.ts';
import { type OperationFacts, operationFacts } from './operation_facts.ts';
import { isParseFailure, isTokenLimit, type ParseCache, sharedParseCache } from './parse_cache.ts';
import { collectReferences, resolveScalar, type Variables } from './references.ts';
import {
  type AccountScope,
  type Analysis,
  type AnalysisFailure,
  type GraphQLEntry,
  isAnalysisFailure,
  malformed,
} from './types.ts';

/**
 * Options of the analysis: the parse cache to use (default: the process-wide one) and
 * ceilings overriding {@link ANALYSIS_LIMITS}.
 */
export interface AnalyzeOptions {
  cache?: ParseCache;
  limits?: Partial<AnalysisLimits>;
}

/**
 * Options of a body's analysis ({@link analyzeBody}): those of {@link AnalyzeOptions}, and
 * `maxTokens`, the token limit each document's parse stops at (graphqlMaxTokens).
 */
export interface BodyAnalyzeOptions extends AnalyzeOptions {
  maxTokens?: number;
}

/**
 * A body's analyses: `analyses` of its entries in order, up to the first whose document has
 * more than `maxTokens` tokens (`tokenLimitAt`, its index; null when none has). That entry's
 * parse stopped at the limit, so nothing else of it is known: the cost limits refuse it
 * (TooManyTokens) once the entries before it have passed theirs.
 */
export interface BodyAnalysis {
  analyses: Analysis[];
  tokenLimitAt: number | null;
}

/** An entry whose parse stopped at the token limit (see {@link BodyAnalysis}). */
const STOPPED = Symbol('stopped at the token limit');

const EMPTY: Variables = Object.freeze({});

/**
 * Analyses one entry `{query, operationName?, variables?}`.
 *
 * Picks the operation (operationName when given and present, else the only one), then
 * reports its type, the operation name to forward, root fields, introspection, bots,
 * resource ids, slowness and the account-scope verdict (see {@link Analysis}).
 *
 * Returns an {@link AnalysisFailure} (400 ProxyMalformedQuery) when: `query` is not a
 * string, `operationName` is neither a string nor null, `variables` is not an object; the
 * document does not parse; it has no operation, several and no name, or not the named one;
 * it has unknown, duplicate or cyclic fragments; selections nest deeper than
 * `maxSelectionDepth`; more than `maxVariableNodesWalked` values; more than
 * `maxResourcesPerRequest` distinct resource ids.
 */
export function analyzeEntry(
  entry: GraphQLEntry,
  options: AnalyzeOptions = {},
): Analysis | AnalysisFailure {
  // no token limit here, so the parse is never stopped
  const whole = { cache: options.cache, limits: options.limits };
  return analyzeWithin(entry, whole) as Analysis | AnalysisFailure;
}

/** {@link analyzeEntry}, or {@link STOPPED} when `options.maxTokens` stopped the parse. */
function analyzeWithin(
  entry: GraphQLEntry,
  options: BodyAnalyzeOptions,
): Analysis | AnalysisFailure | typeof STOPPED {
  try {
    return analyze(entry, options);
  } catch {
    return malformed('The document could not be analysed.');
  }
}

function analyze(
  entry: GraphQLEntry,
  options: BodyAnalyzeOptions,
): Analysis | AnalysisFailure | typeof STOPPED {
  const limits = options.limits ? { ...ANALYSIS_LIMITS, ...options.limits } : ANALYSIS_LIMITS;
  const { query, operationName } = entry;
  if (typeof query !== 'string') return malformed('The query must be a string.');
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
    return malformed('The operationName must be a string.');
  }
  const variables = entry.variables ?? EMPTY;
  if (typeof variables !== 'object' || Array.isArray(variables)) {
    return malformed('The variables must be an object.');
  }
  const parsed = (options.cache ?? sharedParseCache).get(query, options.maxTokens);
  if (isTokenLimit(parsed)) return STOPPED;
  if (isParseFailure(parsed)) return malformed(`The document does not parse: ${parsed.parseError}`);
  const index = indexDocument(parsed);
  if (index.problem) return malformed(index.problem);
  const operation = selectOperation(index, operationName);
  if (typeof operation === 'string') return malformed(operation);
  const facts = operationFacts(operation, index.fragments, limits.maxSelectionDepth);
  if (typeof facts === 'string') return malformed(facts);

  const refs = collectReferences(facts.argumentSites, facts.variables, variables, limits);
  if (refs.failure) return malformed(refs.failure);
  return {
    query,
    operationType: operation.operation,
    operationName: operation.name?.value ?? null,
    rootFields: facts.rootFields,
    introspectionField: facts.introspectionField,
    bots: refs.bots,
    unresolvableBot: refs.unresolvableBot,
    resources: refs.resources,
    slow: facts.slow,
    accountScope: evaluateAccountScope(facts, variables),
    cost: {
      depth: facts.depth,
      rootFields: facts.rootFields.length,
      ...textualCost(parsed, query),
    },
  };
}

/**
 * The step-14 verdict for one request: the static verdict, then each `currentUser` field
 * allowed only with a bot argument (must resolve to a non-null value, which the bot fence
 * then checks) or a resource argument (must resolve to a 24-hex string, which the resource
 * fence then checks).
 */
function evaluateAccountScope(facts: OperationFacts, variables: Variables): AccountScope {
  const s = facts.accountScope;
  if (s.blocked !== null) return { blocked: true, field: s.blocked };
  for (const c of s.conditions) {
    const v = resolveScalar(c.value, facts.variables, variables);
    const ok = c.need === 'bot'
      ? v !== null && v !== undefined
      : typeof v === 'string' && RESOURCE_ID_ARGUMENTS.valuePattern.test(v);
    if (!ok) return { blocked: true, field: `currentUser.${c.field}` };
  }
  return { blocked: false };
}

/**
 * Analyses every entry of a body (one entry or a batch); a batch is admitted whole or not
 * at all, so the first failing entry fails the body (its message names the entry's
 * position when there are several). Also refuses a batch naming more than
 * `maxResourcesPerRequest` distinct resource ids in total (SPEC "Limits": resource ids
 * named by one request).
 */
export function analyzeEntries(
  entries: readonly GraphQLEntry[],
  options: AnalyzeOptions = {},
): Analysis[] | AnalysisFailure {
  const body = analyzeBody(entries, { cache: options.cache, limits: options.limits });
  return 'code' in body ? body : body.analyses;
}

/**
 * {@link analyzeEntries} with each document's parse stopped at `options.maxTokens` tokens (SPEC
 * step 11, and the token limit of docs/configuration.md "Document checks and fences"). An entry
 * past the limit is not analysed; the entries after it still are, so a step-11 refusal of any
 * entry comes before the cost limits as it did when every document was parsed whole. A stopped
 * entry names no resource id for the request's count (nothing past its limit was read).
 */
export function analyzeBody(
  entries: readonly GraphQLEntry[],
  options: BodyAnalyzeOptions = {},
): BodyAnalysis | AnalysisFailure {
  const max = options.limits?.maxResourcesPerRequest ?? ANALYSIS_LIMITS.maxResourcesPerRequest;
  const analyses: Analysis[] = [];
  let tokenLimitAt: number | null = null;
  const ids = new Set<string>();
  for (let i = 0; i < entries.length; i++) {
    const a = analyzeWithin(entries[i], options);
    if (a === STOPPED) {
      tokenLimitAt ??= i;
      continue;
    }
    if (isAnalysisFailure(a)) {
      return entries.length > 1 ? malformed(`Operation ${i + 1} of the batch: ${a.message}`) : a;
    }
    for (const r of a.resources) ids.add(r.id);
    if (ids.size > max) {
      return malformed(`The request names more than ${max} resource ids; send fewer at a time.`);
    }
    if (tokenLimitAt === null) analyses.push(a);
  }
  return { analyses, tokenLimitAt };
}
