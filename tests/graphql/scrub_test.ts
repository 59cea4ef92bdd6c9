/**
 * Upstream error rewriting (SPEC "Error envelope", facts `upstreamMessageScrub`).
 */

import assert from 'node:assert/strict';
import {
  errorCodes,
  scrubAnswerText,
  scrubCloseReason,
  scrubErrors,
} from '../../src/graphql/mod.ts';

const LEAK = 'Failed to fetch from Subgraph "bots-internal" at http://10.0.0.7:4001';
const SAFE = 'The upstream service rejected the request.';

Deno.test('errorCodes: nested codes first, then the outer one', () => {
  const entry = {
    message: 'x',
    extensions: {
      code: 'OUTER',
      errors: [{ message: 'a', extensions: { code: 'Unauthorized' } }, { message: 'b' }],
    },
  };
  assert.deepEqual(errorCodes(entry), ['Unauthorized', 'OUTER']);
  assert.deepEqual(errorCodes({ message: 'x' }), []);
  assert.deepEqual(errorCodes('nope'), []);
  assert.deepEqual(errorCodes({ extensions: { code: 5 } }), []);
});

Deno.test('scrub: a subgraph sentence is replaced and gets UpstreamServiceError when codeless', () => {
  const body = {
    data: null,
    errors: [{ message: LEAK, path: ['bot'], extensions: { traceId: 't1' } }],
  };
  const out = scrubErrors(body) as typeof body;
  assert.deepEqual(out, {
    data: null,
    errors: [{
      message: SAFE,
      path: ['bot'],
      extensions: { traceId: 't1', code: 'UpstreamServiceError' },
    }],
  });
  assert.equal(body.errors[0].message, LEAK, 'the input is not mutated');
});

Deno.test('scrub: an entry with no extensions at all gets them', () => {
  const out = scrubErrors({ errors: [{ message: LEAK }] });
  assert.deepEqual(out, {
    errors: [{ message: SAFE, extensions: { code: 'UpstreamServiceError' } }],
  });
});

Deno.test('scrub: an entry with a code at either level keeps its codes', () => {
  const outer = scrubErrors({
    errors: [{ message: LEAK, extensions: { code: 'NotEnoughPermissions' } }],
  });
  assert.deepEqual(outer, {
    errors: [{ message: SAFE, extensions: { code: 'NotEnoughPermissions' } }],
  });
  const nested = {
    errors: [{
      message: LEAK,
      extensions: { errors: [{ message: LEAK, extensions: { code: 'Unauthorized' } }] },
    }],
  };
  assert.deepEqual(scrubErrors(nested), {
    errors: [{
      message: SAFE,
      extensions: { errors: [{ message: SAFE, extensions: { code: 'Unauthorized' } }] },
    }],
  });
});

Deno.test('scrub: other fields and their order are kept; clean answers are returned as is', () => {
  const body = {
    errors: [{
      path: ['a'],
      message: LEAK,
      locations: [{ line: 1 }],
      extensions: { service: 's' },
    }],
    data: { a: 1 },
  };
  const out = scrubErrors(body) as typeof body;
  assert.deepEqual(Object.keys(out), ['errors', 'data']);
  assert.deepEqual(Object.keys(out.errors[0]), ['path', 'message', 'locations', 'extensions']);
  assert.deepEqual(out.errors[0].extensions, { service: 's', code: 'UpstreamServiceError' });
  const clean = { errors: [{ message: 'Bot not found', extensions: { code: 'NotFound' } }] };
  assert.equal(scrubErrors(clean), clean);
  assert.equal(scrubErrors(null), null);
  assert.equal(scrubErrors('text'), 'text');
});

Deno.test('scrub: batch answers, error-frame payloads and whole socket frames', () => {
  const batch = [{ data: { a: 1 } }, { errors: [{ message: LEAK }] }];
  assert.deepEqual(scrubErrors(batch), [
    { data: { a: 1 } },
    { errors: [{ message: SAFE, extensions: { code: 'UpstreamServiceError' } }] },
  ]);
  assert.deepEqual(scrubErrors([{ message: LEAK }]), [{
    message: SAFE,
    extensions: { code: 'UpstreamServiceError' },
  }]);
  const next = { id: '1', type: 'next', payload: { data: null, errors: [{ message: LEAK }] } };
  assert.deepEqual(scrubErrors(next), {
    id: '1',
    type: 'next',
    payload: {
      data: null,
      errors: [{ message: SAFE, extensions: { code: 'UpstreamServiceError' } }],
    },
  });
  const error = { id: '2', type: 'error', payload: [{ message: LEAK }] };
  assert.deepEqual(scrubErrors(error), {
    id: '2',
    type: 'error',
    payload: [{ message: SAFE, extensions: { code: 'UpstreamServiceError' } }],
  });
});

Deno.test('scrub text: untouched without the trigger, rewritten with it, non-JSON left alone', () => {
  const clean = '{"data":{"bot":{"id":"1"}}}';
  assert.equal(scrubAnswerText(clean), clean);
  const dirty = JSON.stringify({ errors: [{ message: LEAK }], data: null });
  assert.deepEqual(JSON.parse(scrubAnswerText(dirty)), {
    errors: [{ message: SAFE, extensions: { code: 'UpstreamServiceError' } }],
    data: null,
  });
  const dataOnly = '{"data":{"note":"my subgraph notes"}}';
  assert.equal(scrubAnswerText(dataOnly), dataOnly, 'data mentioning the word is not an error');
  assert.equal(scrubAnswerText('<html>Subgraph</html>'), '<html>Subgraph</html>');
});

Deno.test('scrub close reason', () => {
  assert.equal(scrubCloseReason(LEAK), SAFE);
  assert.equal(scrubCloseReason('upstream disconnected'), 'upstream disconnected');
});
