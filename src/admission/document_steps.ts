/**
 * Steps 10 to 17 of SPEC "Order in which a GraphQL body is checked": the
 * document checks, as rows over the analysis of `src/graphql`. Steps 14 and
 * 15 apply with the gate on only.
 */
import { type Refusal, refusal } from '../http/error_codes.ts';
import * as doc from '../graphql/mod.ts';
import type { Step } from './chain.ts';
import { variablesOf } from './entries.ts';
import type { GraphqlState as S } from './graphql_state.ts';

const gateOn = (s: S) => s.core.config.auth.state === 'on';

/** Step 10: a registry match forwards the record's own text and operation name. */
export const registry: Step<S> = {
  step: 10,
  check: 'each document is one the app ships (when a registry exists)',
  run(s) {
    s.forward = [];
    for (const entry of s.body!.entries) {
      const variables = variablesOf(entry);
      if ('code' in variables) return variables as Refusal;
      const name = typeof entry.operationName === 'string' ? entry.operationName : null;
      const verdict = doc.registryCheck(s.core.registry, {
        query: entry.query,
        operationName: name,
        variables,
      }, s.core.config.graphqlMaxTokens);
      if ('code' in verdict) return verdict;
      const chosen = verdict.entry;
      s.forward.push({
        query: chosen.query,
        operationName: chosen.operationName ?? null,
        variables,
      });
    }
    return null;
  },
};

/**
 * Step 11: parse (cached) and analyse every entry, the batch whole or not at
 * all (at most 500 distinct resource ids over the request); the forwarded
 * name comes from the parsed document. Each parse stops at the first token
 * past graphqlMaxTokens: that entry is left to the cost limits (TooManyTokens)
 * and the entries after it are still analysed, so a step-11 refusal still
 * comes first (docs/readings.md "Beyond the spec").
 */
export const analysis: Step<S> = {
  step: 11,
  check: 'document parses and analysis completes',
  run(s) {
    const result = doc.analyzeBody(s.forward, { maxTokens: s.core.config.graphqlMaxTokens });
    if ('code' in result) return result;
    result.analyses.forEach((a, i) => s.forward[i].operationName = a.operationName);
    s.analyses = result.analyses;
    s.tokenLimitAt = result.tokenLimitAt;
    return null;
  },
};

/**
 * The cost limits: measure, option, refusal code and sentence. Tokens first: it is the one
 * measured while parsing, and a document past it has no other measure.
 */
const COST_LIMITS = [
  ['tokens', 'graphqlMaxTokens', 'TooManyTokens', 'more tokens than'],
  ['depth', 'graphqlMaxDepth', 'QueryTooDeep', 'selections nested deeper than'],
  ['aliases', 'graphqlMaxAliases', 'TooManyAliases', 'more aliases than'],
  ['rootFields', 'graphqlMaxRootFields', 'TooManyRootFields', 'more root fields than'],
  ['directives', 'graphqlMaxDirectives', 'TooManyDirectives', 'more directives than'],
] as const;

const costRefusal = ([, option, code, sentence]: (typeof COST_LIMITS)[number], max: number) =>
  refusal(code, `The document has ${sentence} ${max} (${option}).`);

/**
 * Right after step 11 (not a spec row; docs/configuration.md "Document checks and fences"): every
 * document within graphqlMaxTokens, graphqlMaxDepth, graphqlMaxAliases, graphqlMaxRootFields and
 * graphqlMaxDirectives, else 400 with the limit's own code, entries in order. A limit equal to
 * the measure passes. The entry whose parse stopped at graphqlMaxTokens (step 11) is refused
 * TooManyTokens once the entries before it passed. A refused document is dropped from the parse
 * cache, so its tree is not held.
 */
export const costLimits: Step<S> = {
  step: 11.5,
  check: 'each document within the cost limits (not a spec row)',
  run(s) {
    const config = s.core.config;
    for (const a of s.analyses) {
      for (const limit of COST_LIMITS) {
        const max = config[limit[1]];
        if (a.cost[limit[0]] > max) {
          doc.sharedParseCache.forget(a.query);
          return costRefusal(limit, max);
        }
      }
    }
    if (s.tokenLimitAt !== null) return costRefusal(COST_LIMITS[0], config.graphqlMaxTokens);
    return null;
  },
};

/** A row checking each analysis with a pure predicate. */
function perDocument(
  step: number,
  check: string,
  predicate: (a: doc.Analysis, s: S) => Refusal | null,
  applies: (s: S) => boolean = () => true,
): Step<S> {
  return {
    step,
    check,
    run(s) {
      if (!applies(s)) return null;
      for (const a of s.analyses) {
        const refused = predicate(a, s);
        if (refused) return refused;
      }
      return null;
    },
  };
}

/** Step 12: 403 IntrospectionBlocked (gate on or off). */
export const introspection = perDocument(
  12,
  'no root field is __schema or __type',
  doc.introspection,
);

/** Step 13: 403 AccountOperationBlocked. */
export const accountOperation = perDocument(
  13,
  'no root field is an account-level operation',
  doc.accountOperation,
);

/** Step 14 (gate on): 403 AccountScopeBlocked. */
export const accountScope = perDocument(
  14,
  'gate on: nothing under currentUser and nothing reached through a bot reads the account',
  doc.accountScope,
  gateOn,
);

/** Step 15 (gate on): 403 AccountStructureBlocked. */
export const accountStructure = perDocument(
  15,
  "gate on: no root field changes the deployment's workspaces and bots",
  doc.accountStructure,
  gateOn,
);

/** Step 16: 403 OperationNotAllowed when the allowlist is on. */
export const allowlist = perDocument(
  16,
  'every root field is on the operation allowlist (when enabled)',
  (a, s) => s.core.allowlist ? doc.allowlist(s.core.allowlist)(a) : null,
);

/** Step 17: 400 ProxyMalformedQuery for a non-string (or unresolvable) bot; collects the bots. */
export const botsAreStrings = perDocument(17, 'every named bot is a string', (a, s) => {
  const refused = doc.botsAreStrings(a);
  if (refused) return refused;
  for (const bot of a.bots) s.bots.add(bot.value as string);
  return null;
});
