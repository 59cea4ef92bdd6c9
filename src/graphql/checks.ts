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
