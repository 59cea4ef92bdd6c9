/**
 * The check chain tables read like SPEC "Order in which a GraphQL body is
 * checked": rows in ascending order, every row of the spec but 21 (the
 * forward itself) on the HTTP route, and the socket's chain (the tenant's
 * budget, then the payload) with the registry first among the document checks.
 * 11.5 is not a spec row: the cost limits
 * (docs/configuration.md "Document checks and fences"), right after the document
 * parses, on both chains. 9.5 is not a spec row either: the parsed documents' share of the
 * memory budget (docs/operations.md "Memory"), before any document is parsed, on the HTTP route.
 */
import assert from 'node:assert/strict';
import { HTTP_STEPS, SOCKET_STEPS } from '../src/admission/steps.ts';

Deno.test('the HTTP chain is the spec table in order', () => {
  assert.deepEqual(HTTP_STEPS.map((s) => s.step), [
    1,
    2,
    3,
    4,
    5,
    6,
    7,
    8,
    9,
    9.5,
    10,
    11,
    11.5,
    12,
    13,
    14,
    15,
    16,
    17,
    18,
    19,
    20,
  ]);
});

Deno.test('the socket chain: tenant budget, payload shape, extensions, then registry first', () => {
  assert.deepEqual(SOCKET_STEPS.map((s) => s.step), [
    4,
    7,
    9,
    10,
    11,
    11.5,
    12,
    13,
    14,
    15,
    16,
    17,
    18,
    19,
    20,
  ]);
});

Deno.test('an upload reuses the chain rows it has: gate, token, tenant, then its two, then the bot fence', async () => {
  const { UPLOAD_STEPS } = await import('../src/admission/steps.ts');
  assert.deepEqual(UPLOAD_STEPS.map((s) => s.step), [2, 3, 4, 13, 17, 18, 19]);
});
