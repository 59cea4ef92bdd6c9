/**
 * The client's classification tables under Deno (SPEC "Client library error classes"):
 * which answer becomes which class, the code helpers (both levels, nested first), the retry
 * table, the socket's fatal closes, the backoff bounds.
 */
import assert from 'node:assert/strict';
import {
  backoffMs,
  classifyAnswer,
  errorMessageFor,
  FATAL_CLOSE_CODES,
  hasErrorCode,
  isNotAvailable,
  isRetryable,
  isSessionError,
  nestedErrorCodes,
  readRouteAnswer,
  socketError,
  SvcApiError,
  SvcAuthError,
  SvcGraphQLError,
  SvcHttpError,
  SvcNetworkError,
  SvcNotAvailableError,
  SvcSessionError,
} from '../../src/client/mod.ts';

const envelope = (...codes: (string | [string, string])[]) =>
  JSON.stringify({
    data: null,
    errors: codes.map((c) =>
      Array.isArray(c)
        ? {
          message: 'outer',
          extensions: { code: c[0], errors: [{ message: 'in', extensions: { code: c[1] } }] },
        }
        : { message: `m ${c}`, extensions: { code: c, traceId: 't-1' } }
    ),
  });

/** One row per case: status, body, the class expected (exact), extra checks. */
const ANSWERS: [
  string,
  number,
  string,
  abstract new (...args: never[]) => SvcApiError,
  (e: SvcApiError) => void,
][] = [
  ['401 AuthSessionRequired', 401, envelope('AuthSessionRequired'), SvcSessionError, (e) => {
    assert.equal((e as SvcSessionError).reason, 'sessionRequired');
    assert.equal((e as SvcSessionError).status, 401);
  }],
  [
    '403 AuthTenantForbidden',
    403,
    envelope('AuthTenantForbidden'),
    SvcSessionError,
    (e) => assert.equal((e as SvcSessionError).reason, 'forbidden'),
  ],
  [
    'both session codes: sessionRequired wins',
    403,
    envelope('AuthTenantForbidden', 'AuthSessionRequired'),
    SvcSessionError,
    (e) => assert.equal((e as SvcSessionError).reason, 'sessionRequired'),
  ],
  [
    'session before auth',
    200,
    envelope('Unauthorized', 'AuthSessionRequired'),
    SvcSessionError,
    () => {},
  ],
  [
    'Unauthorized at 200',
    200,
    envelope('Unauthorized'),
    SvcAuthError,
    (e) => assert.equal((e as SvcAuthError).code, 'Unauthorized'),
  ],
  [
    'nested Unauthorized',
    200,
    envelope(['SubgraphError', 'Unauthorized']),
    SvcAuthError,
    (e) => assert.equal((e as SvcAuthError).code, 'Unauthorized', 'nested code first'),
  ],
  ['nested session code', 200, envelope(['X', 'AuthSessionRequired']), SvcSessionError, () => {}],
  ['plain GraphQL at 200', 200, envelope('BotDoesNotExist'), SvcGraphQLError, (e) => {
    const g = e as SvcGraphQLError;
    assert.equal(g.code, 'BotDoesNotExist');
    assert.equal(g.traceId, 't-1');
    assert.equal(g.isPermissionDenied, false);
  }],
  [
    '403 BotNotAllowed',
    403,
    envelope('BotNotAllowed'),
    SvcGraphQLError,
    (e) => assert.equal((e as SvcGraphQLError).isPermissionDenied, true),
  ],
  [
    'nested NotEnoughPermissions',
    200,
    envelope(['Outer', 'NotEnoughPermissions']),
    SvcGraphQLError,
    (e) => assert.equal((e as SvcGraphQLError).isPermissionDenied, true),
  ],
  [
    '503 ProxyBusy envelope',
    503,
    envelope('ProxyBusy'),
    SvcGraphQLError,
    (e) => assert.equal((e as SvcGraphQLError).status, 503),
  ],
  ['429 with envelope', 429, envelope('TenantBusy'), SvcHttpError, (e) => {
    assert.equal((e as SvcHttpError).code, 'TenantBusy');
    assert.equal((e as SvcHttpError).retryAfterMs, 5000);
  }],
  [
    '429 plain',
    429,
    'slow down',
    SvcHttpError,
    (e) => assert.equal((e as SvcHttpError).code, null),
  ],
  ['502 html', 502, '<html>' + 'x'.repeat(500), SvcHttpError, (e) => {
    const h = e as SvcHttpError;
    assert.equal(h.bodySnippet.length, 200);
    assert.ok(!h.message.includes('<html>'), 'snippet kept off message');
  }],
  ['200 non-JSON', 200, 'ok', SvcHttpError, () => {}],
  ['404 JSON without errors', 404, '{"message":"no"}', SvcHttpError, () => {}],
  ['200 array', 200, '[{"data":{}}]', SvcHttpError, () => {}],
];

Deno.test('classifyAnswer: one class per answer, in the spec order', () => {
  for (const [name, status, body, cls, check] of ANSWERS) {
    const outcome = classifyAnswer(status, body, status === 429 ? '5' : null);
    assert.equal(outcome.ok, false, name);
    if (outcome.ok) continue;
    assert.equal(outcome.error.constructor, cls, name);
    assert.ok(outcome.error instanceof SvcApiError && outcome.error instanceof Error, name);
    check(outcome.error);
  }
});

Deno.test('classifyAnswer: a 2xx object with data is a result; errors with data keep data', () => {
  assert.deepEqual(classifyAnswer(200, '{"data":{"a":1}}'), { ok: true, data: { a: 1 } });
  assert.deepEqual(classifyAnswer(200, '{"data":{"a":1},"errors":[]}'), {
    ok: true,
    data: { a: 1 },
  });
  const partial = classifyAnswer(200, '{"data":{"a":1},"errors":[{"message":"x"}]}');
  assert.ok(!partial.ok && partial.error instanceof SvcGraphQLError);
  assert.deepEqual(((partial as { error: SvcApiError }).error as SvcGraphQLError).data, { a: 1 });
});

Deno.test('nestedErrorCodes reads both levels, nested first, duck-typed on .errors', () => {
  const value = {
    errors: [
      {
        message: 'a',
        extensions: { code: 'Outer', errors: [{ message: 'n', extensions: { code: 'Inner' } }] },
      },
      { message: 'b', extensions: { code: 'Second' } },
      { message: 'c' },
    ],
  };
  assert.deepEqual(nestedErrorCodes(value), ['Inner', 'Outer', 'Second']);
  assert.deepEqual(nestedErrorCodes(value.errors), ['Inner', 'Outer', 'Second']);
  assert.deepEqual(nestedErrorCodes(null), []);
  assert.deepEqual(nestedErrorCodes(new Error('x')), []);
  assert.deepEqual(nestedErrorCodes(new SvcHttpError(429, '', { code: 'TenantBusy' })), [
    'TenantBusy',
  ]);
  assert.ok(hasErrorCode(value, 'Inner'));
  assert.ok(hasErrorCode(value, ['Nope', 'Second']));
  assert.ok(!hasErrorCode(value, 'Nope'));
  assert.ok(
    isSessionError({ errors: [{ message: '', extensions: { code: 'AuthTenantForbidden' } }] }),
  );
  assert.ok(!isSessionError(value));
});

Deno.test('errorMessageFor: first known code (nested first), then class name, then fallback', () => {
  const outcome = classifyAnswer(200, envelope(['Outer', 'BotNotAllowed']));
  const err = (outcome as { error: SvcApiError }).error;
  const messages = { BotNotAllowed: 'Not your bot', Outer: 'outer', SvcNetworkError: 'Offline' };
  assert.equal(errorMessageFor(err, messages, 'Something failed'), 'Not your bot');
  assert.equal(errorMessageFor(new SvcNetworkError('x', null), messages, 'f'), 'Offline');
  assert.equal(errorMessageFor(new Error('secret text'), messages, 'f'), 'f');
});

Deno.test('isRetryable: 429 always; network and 5xx only idempotent; GraphQL, auth, session never', () => {
  const err = (status: number, body: string) =>
    (classifyAnswer(status, body, null) as { error: SvcApiError }).error;
  const rows: [SvcApiError, boolean, boolean][] = [
    [err(429, envelope('TenantBusy')), true, true],
    [new SvcNetworkError('x', null), false, true],
    [err(502, 'bad gateway'), false, true],
    [err(503, envelope('ProxyBusy')), false, true],
    [err(504, envelope('ProxyUpstreamUnavailable')), false, true],
    [err(200, envelope('BotDoesNotExist')), false, false],
    [err(400, envelope('ProxyMalformedQuery')), false, false],
    [err(200, envelope('Unauthorized')), false, false],
    [err(401, envelope('AuthSessionRequired')), false, false],
    [err(404, 'nope'), false, false],
  ];
  for (const [e, plain, idempotent] of rows) {
    assert.equal(isRetryable(e, false), plain, `${e.name} ${e.message} plain`);
    assert.equal(isRetryable(e, true), idempotent, `${e.name} ${e.message} idempotent`);
  }
});

// What the socket does after each close (fatal or retried, 4500 and 4005 included) is tested in
// Chromium against a real gateway: tests/browser/socket_test.ts.
Deno.test('socket: the fatal close table; sink values classified', () => {
  assert.deepEqual([...FATAL_CLOSE_CODES].sort(), [4400, 4401, 4403, 4406, 4409, 4429]);
  const lapse = socketError({ code: 4401, reason: 'AuthSessionRequired' });
  assert.ok(lapse instanceof SvcSessionError && lapse.reason === 'sessionRequired');
  const forbidden = socketError({ code: 4403, reason: 'AuthTenantForbidden' });
  assert.ok(forbidden instanceof SvcSessionError && forbidden.reason === 'forbidden');
  assert.equal(socketError({ code: 4401, reason: 'Unauthorized' }).constructor, SvcApiError);
  assert.equal(socketError({ code: 4403, reason: 'Forbidden' }).constructor, SvcApiError);
  assert.ok(socketError(new Event('error')) instanceof SvcNetworkError);
  const frame = socketError([{ message: 'no', extensions: { code: 'BotNotAllowed' } }]);
  assert.ok(frame instanceof SvcGraphQLError && frame.isPermissionDenied);
});

Deno.test('backoffMs: between half and all of min(cap, base * 2^attempt)', () => {
  for (
    const [attempt, base, cap, low, high] of [
      [0, 1000, 30000, 500, 1000],
      [3, 1000, 30000, 4000, 8000],
      [10, 1000, 30000, 15000, 30000],
      [0, 5000, 60000, 2500, 5000],
    ]
  ) {
    assert.equal(backoffMs(attempt, base, cap, () => 0), low);
    assert.equal(backoffMs(attempt, base, cap, () => 0.999999), high);
  }
});

Deno.test('readRouteAnswer: absence, refusals and answers of the optional routes', () => {
  const read = (status: number, text: string) => {
    try {
      return readRouteAnswer('/svc/x', status, text);
    } catch (error) {
      return error;
    }
  };
  for (const [status, text] of [[404, 'Not Found'], [405, ''], [200, '<!doctype html>']] as const) {
    assert.ok(read(status, text) instanceof SvcNotAvailableError, `${status} ${text}`);
    assert.ok(isNotAvailable(read(status, text)));
  }
  const refused = read(404, envelope('BotNotFound'));
  assert.ok(refused instanceof SvcGraphQLError && refused.code === 'BotNotFound');
  assert.ok(read(401, envelope('AuthSessionRequired')) instanceof SvcSessionError);
  const busy = read(429, envelope('AdminThrottled'));
  assert.ok(busy instanceof SvcHttpError && busy.code === 'AdminThrottled');
  assert.ok(read(502, 'bad') instanceof SvcHttpError);
  assert.deepEqual(read(201, '{"id":"x"}'), { id: 'x' });
  assert.equal(read(204, ''), null);
});
