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
import { isParseFailure, type ParseCache, sharedParseCache } from './parse_cache.ts';
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
  try {
    return analyze(entry, options);
  } catch {
    return malformed('The document could not be analysed.');
  }
}

function analyze(entry: GraphQLEntry, options: AnalyzeOptions): Analysis | AnalysisFailure {
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
  const parsed = (options.cache ?? sharedParseCache).get(query);
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
  const max = options.limits?.maxResourcesPerRequest ?? ANALYSIS_LIMITS.maxResourcesPerRequest;
  const out: Analysis[] = [];
  const ids = new Set<string>();
  for (let i = 0; i < entries.length; i++) {
    const a = analyzeEntry(entries[i], options);
    if (isAnalysisFailure(a)) {
      return entries.length > 1 ? malformed(`Operation ${i + 1} of the batch: ${a.message}`) : a;
    }
    for (const r of a.resources) ids.add(r.id);
    if (ids.size > max) {
      return malformed(`The request names more than ${max} resource ids; send fewer at a time.`);
    }
    out.push(a);
  }
  return out;
}
