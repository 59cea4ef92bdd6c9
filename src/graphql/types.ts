/**
 * The shapes the document analysis takes and returns (SPEC "GraphQL request entry",
 * "Order in which a GraphQL body is checked" steps 10-17, "Document checks in detail").
 *
 * @module
 */

import type { DocumentCost } from './cost.ts';

/**
 * One GraphQL request entry as it arrived (a POST body, one element of a batch, or the
 * payload of a socket subscribe frame). `extensions` is checked before analysis (step 9).
 */
export interface GraphQLEntry {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
}

/** The three operation types. */
export type OperationType = 'query' | 'mutation' | 'subscription';

/**
 * A bot named by the request. `value` is the raw value as found (a literal's value, or a
 * variable's value); step 17 refuses any that is not a string. `argument` names where it
 * was found, for the refusal sentence (e.g. `botID`, `bot(id:)`, `variables.botID`).
 */
export interface BotReference {
  value: unknown;
  argument: string;
}

/**
 * A resource id named by the request (SPEC "Resource fence"): `id` is 24 lowercase hex
 * characters; `argument` is the argument or input field name it was found under (the
 * `<argument>` of the refusal sentence).
 */
export interface ResourceReference {
  id: string;
  argument: string;
}

/**
 * The gate-on account-scope verdict (SPEC step 14). `field` names the field that reads the
 * account, when blocked.
 */
export interface AccountScope {
  blocked: boolean;
  field?: string;
}

/**
 * What one entry's document does, as far as the checks need to know. Produced by
 * `analyzeEntry`; every field is data, nothing here refuses by itself.
 *
 * - `query`: the document text (unchanged).
 * - `operationType`, `operationName`: of the selected operation; `operationName` is the
 *   name to forward (from the document, never from the request; null for anonymous).
 * - `rootFields`: distinct root field names (aliases ignored, fragments followed), in
 *   document order.
 * - `introspectionField`: `__schema` or `__type` when selected anywhere, else null.
 * - `bots`: every bot named (literal, variable, default, nested input), deduplicated by
 *   value; `unresolvableBot` describes a bot named in a shape that could not be resolved
 *   (missing variable, object or list where an id is expected), else null.
 * - `resources`: distinct resource ids, at most `maxResourcesPerRequest`.
 * - `slow`: a root field is one of the four slow publish fields (slowTimeoutMs applies).
 * - `accountScope`: the step-14 verdict for this request's variables.
 */
export interface Analysis {
  query: string;
  operationType: OperationType;
  operationName: string | null;
  rootFields: readonly string[];
  introspectionField: string | null;
  bots: readonly BotReference[];
  unresolvableBot: string | null;
  resources: readonly ResourceReference[];
  slow: boolean;
  accountScope: AccountScope;
  /** The document's size, for the cost limits checked right after step 11 (`cost.ts`). */
  cost: DocumentCost;
}

/**
 * Why an entry could not be analysed (step 10/11): the document does not parse, names no
 * or an ambiguous operation, has unknown or cyclic fragments, is nested too deep, walks
 * too many values, or names more than 500 resource ids. Always 400 ProxyMalformedQuery.
 */
export interface AnalysisFailure {
  code: 'ProxyMalformedQuery';
  message: string;
}

/** Narrowing helper: whether an analysis result (one entry's, or a batch's) is a failure. */
export function isAnalysisFailure<T extends Analysis | readonly Analysis[]>(
  v: T | AnalysisFailure,
): v is AnalysisFailure {
  return !Array.isArray(v) && (v as AnalysisFailure).code === 'ProxyMalformedQuery';
}

/** Builds an {@link AnalysisFailure}. */
export function malformed(message: string): AnalysisFailure {
  return { code: 'ProxyMalformedQuery', message };
}
