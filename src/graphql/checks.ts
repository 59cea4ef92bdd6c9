/**
 * The document steps of SPEC "Order in which a GraphQL body is checked" (12-17) as pure
 * predicates over an {@link Analysis}: each returns a {@link Refusal} or null (passes).
 *
 * The chain (src/admission) decides which apply: 14 and 15 only with the gate on, 16 only
 * with an allowlist. {@link documentChecks} lists them in the spec's order as data.
 *
 * @module
 */

import { type Refusal, refusal } from '../http/error_codes.ts';
import { ACCOUNT_OPERATIONS, ACCOUNT_STRUCTURE_OPERATIONS } from './lists.ts';
import type { Analysis } from './types.ts';

/** A document check: a refusal, or null when the analysis passes. */
export type DocumentCheck = (analysis: Analysis) => Refusal | null;

/** Step 12: no root field is `__schema` or `__type` (checked anywhere); 403 IntrospectionBlocked. */
export const introspection: DocumentCheck = (a) =>
  a.introspectionField === null ? null : refusal(
    'IntrospectionBlocked',
    `The field ${a.introspectionField} is introspection, which this proxy does not forward.`,
  );

/** Step 13: no root field is an account-level operation; 403 AccountOperationBlocked. */
export const accountOperation: DocumentCheck = (a) => {
  const field = a.rootFields.find((f) => ACCOUNT_OPERATIONS.has(f));
  return field === undefined ? null : refusal(
    'AccountOperationBlocked',
    `The field ${field} acts on the whole account behind this proxy and is not forwarded.`,
  );
};

/**
 * Step 14 (gate on): nothing under currentUser beyond id, botRole, __typename (and the two
 * fields allowed with a bot or resource argument), no fragment spread there, and nothing
 * reached through a bot reads the account; 403 AccountScopeBlocked.
 */
export const accountScope: DocumentCheck = (a) =>
  a.accountScope.blocked
    ? refusal(
      'AccountScopeBlocked',
      `The selection ${a.accountScope.field} reads the account rather than one bot and is not forwarded.`,
    )
    : null;

/** Step 15 (gate on): no root field changes the deployment's workspaces and bots; 403 AccountStructureBlocked. */
export const accountStructure: DocumentCheck = (a) => {
  const field = a.rootFields.find((f) => ACCOUNT_STRUCTURE_OPERATIONS.has(f));
  return field === undefined ? null : refusal(
    'AccountStructureBlocked',
    `The field ${field} changes this deployment's workspaces and bots; use the proxy's bot routes instead.`,
  );
};

/**
 * Step 16: every root field is on the operation allowlist; `allowed` null means the
 * allowlist is off (always passes). 403 OperationNotAllowed.
 */
export function allowlist(allowed: ReadonlySet<string> | null): DocumentCheck {
  if (allowed === null) return () => null;
  return (a) => {
    const field = a.rootFields.find((f) => !allowed.has(f));
    return field === undefined ? null : refusal(
      'OperationNotAllowed',
      `The field ${field} is not on this deployment's operation allowlist.`,
    );
  };
}

/**
 * Step 17: every named bot is a string, and no bot is named in a shape the analysis could
 * not resolve (a variable neither supplied nor defaulted, a list or object where an id is
 * expected); 400 ProxyMalformedQuery.
 */
export const botsAreStrings: DocumentCheck = (a) => {
  if (a.unresolvableBot !== null) {
    return refusal('ProxyMalformedQuery', `The bot cannot be checked: ${a.unresolvableBot}`);
  }
  const bad = a.bots.find((b) => typeof b.value !== 'string');
  return bad === undefined ? null : refusal(
    'ProxyMalformedQuery',
    `The bot id given as ${bad.argument} must be a string.`,
  );
};

/** One step of the document checks: its number in the spec's table, a name, the check. */
export interface DocumentStep {
  step: number;
  name: string;
  check: DocumentCheck;
}

/**
 * The document steps 12-17 that apply to a deployment, in the spec's order: `gateOn`
 * adds 14 and 15; `allowlist` (a set, or null when off) gives 16.
 */
export function documentChecks(options: {
  gateOn: boolean;
  allowlist: ReadonlySet<string> | null;
}): readonly DocumentStep[] {
  const steps: DocumentStep[] = [
    { step: 12, name: 'introspection', check: introspection },
    { step: 13, name: 'accountOperation', check: accountOperation },
  ];
  if (options.gateOn) {
    steps.push({ step: 14, name: 'accountScope', check: accountScope });
    steps.push({ step: 15, name: 'accountStructure', check: accountStructure });
  }
  if (options.allowlist) {
    steps.push({ step: 16, name: 'allowlist', check: allowlist(options.allowlist) });
  }
  steps.push({ step: 17, name: 'botsAreStrings', check: botsAreStrings });
  return steps;
}

/**
 * Runs the steps over one analysis, or over every entry of a batch step by step (step 12
 * for all entries, then 13, ...), so the refusal is the one of the earliest step; null
 * when everything passes.
 */
export function runDocumentChecks(
  steps: readonly DocumentStep[],
  analyses: Analysis | readonly Analysis[],
): Refusal | null {
  const list: readonly Analysis[] = Array.isArray(analyses) ? analyses : [analyses as Analysis];
  for (const s of steps) {
    for (const a of list) {
      const r = s.check(a);
      if (r) return r;
    }
  }
  return null;
}
