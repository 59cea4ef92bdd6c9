/**
 * JSON texts of a chosen nesting depth for the JSON depth suites (src/http/json_depth.ts: the
 * outer object or array is level 1).
 */

/** `n` arrays around `1`: depth n. */
export function nest(n: number): string {
  return '['.repeat(n) + '1' + ']'.repeat(n);
}

/** The same value parsed (V8's JSON.parse does not recurse). */
export function nestValue(n: number): unknown {
  return JSON.parse(nest(n));
}

/**
 * A GraphQL body of depth `depth`: the outer object is 1, `variables` 2, and `variables.x` holds
 * the arrays from 3 on.
 */
export function deepBody(query: string, depth: number, variables: Record<string, unknown> = {}) {
  const rest = Object.keys(variables).length === 0
    ? ''
    : JSON.stringify(variables).slice(1, -1) + ',';
  return `{"query":${JSON.stringify(query)},"variables":{${rest}"x":${nest(depth - 2)}}}`;
}
