/**
 * Steps 10 to 17 of SPEC "Order in which a GraphQL body is checked": the
 * document checks, as rows over the analysis of `src/graphql`. Steps 14 and
 * 15 apply with the gate on only.
 */
import type { Refusal } from '../http/error_codes.ts';
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
      if (!s.core.registry) {
        const name = typeof entry.operationName === 'string' ? entry.operationName : null;
        s.forward.push({ query: entry.query, operationName: name, variables });
        continue;
      }
      const verdict = doc.registryCheck(s.core.registry, entry.query);
      if ('code' in verdict) return verdict;
      s.forward.push({ query: verdict.text, operationName: verdict.operationName, variables });
    }
    return null;
  },
};

/** Step 11: parse (cached) and analyse; the forwarded name comes from the parsed document. */
export const analysis: Step<S> = {
  step: 11,
  check: 'document parses and analysis completes',
  run(s) {
    s.analyses = [];
    for (const entry of s.forward) {
      const result = doc.analyzeEntry(entry);
      if ('code' in result) return result;
      entry.operationName = result.operationName;
      s.analyses.push(result);
    }
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
  (a) => doc.checkIntrospection(a),
);

/** Step 13: 403 AccountOperationBlocked. */
export const accountOperation = perDocument(
  13,
  'no root field is an account-level operation',
  (a) => doc.checkAccountOperation(a),
);

/** Step 14 (gate on): 403 AccountScopeBlocked. */
export const accountScope = perDocument(
  14,
  'gate on: nothing under currentUser and nothing reached through a bot reads the account',
  (a) => doc.checkAccountScope(a),
  gateOn,
);

/** Step 15 (gate on): 403 AccountStructureBlocked. */
export const accountStructure = perDocument(
  15,
  "gate on: no root field changes the deployment's workspaces and bots",
  (a) => doc.checkAccountStructure(a),
  gateOn,
);

/** Step 16: 403 OperationNotAllowed when the allowlist is on. */
export const allowlist = perDocument(
  16,
  'every root field is on the operation allowlist (when enabled)',
  (a, s) => s.core.allowlist ? doc.checkAllowlist(a, s.core.allowlist) : null,
);

/** Step 17: 400 ProxyMalformedQuery for a non-string (or unresolvable) bot; collects the bots. */
export const botsAreStrings = perDocument(17, 'every named bot is a string', (a, s) => {
  const refused = doc.checkBotsAreStrings(a);
  if (refused) return refused;
  for (const bot of a.bots) s.bots.add(bot.value as string);
  return null;
});
