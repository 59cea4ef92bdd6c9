/**
 * Small helpers for the document analysis tests.
 *
 * @module
 */

import assert from 'node:assert/strict';
import {
  type Analysis,
  analyzeEntry,
  type AnalyzeOptions,
  type GraphQLEntry,
  isAnalysisFailure,
} from '../../src/graphql/mod.ts';

/** Analyses and asserts the analysis completed. */
export function analysed(
  query: string,
  variables?: Record<string, unknown>,
  operationName?: string,
  options?: AnalyzeOptions,
): Analysis {
  const entry: GraphQLEntry = { query };
  if (variables) entry.variables = variables;
  if (operationName !== undefined) entry.operationName = operationName;
  const a = analyzeEntry(entry, options);
  if (isAnalysisFailure(a)) assert.fail(`analysis failed: ${a.message}\n${query}`);
  return a;
}

/** Analyses and asserts a 400 ProxyMalformedQuery failure; returns its message. */
export function failure(
  entry: GraphQLEntry,
  options?: AnalyzeOptions,
): string {
  const a = analyzeEntry(entry, options);
  if (!isAnalysisFailure(a)) assert.fail(`expected a failure for ${entry.query}`);
  assert.equal(a.code, 'ProxyMalformedQuery');
  assert.ok(a.message.length > 0);
  return a.message;
}

/** The bot values of an analysis. */
export function botValues(a: Analysis): unknown[] {
  return a.bots.map((b) => b.value);
}

/** The resource ids of an analysis. */
export function resourceIds(a: Analysis): string[] {
  return a.resources.map((r) => r.id);
}

/** A 24-hex id made of one repeated character. */
export function hex(c: string): string {
  return c.repeat(24);
}
