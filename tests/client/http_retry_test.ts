/**
 * createSvcClient under Deno against a real local HTTP server (Deno.serve): a 429's retry-after
 * is honoured (up to capMs), the abort signal stops a retry wait, and a timeout is an
 * SvcNetworkError. Waits are checked as lower bounds only. The browser suites
 * (tests/browser/http_test.ts) cover the same client against the real gateway.
 */
import assert from 'node:assert/strict';
import { createSvcClient, SvcHttpError, SvcNetworkError } from '../../src/client/mod.ts';

/** A server answering each POST with the next of `answers` (the last repeats); arrival times. */
function serve(answers: (() => Response)[]) {
  const arrivals: number[] = [];
  const server = Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: () => {} }, async (req) => {
    await req.body?.cancel();
    arrivals.push(performance.now());
    return answers[Math.min(arrivals.length - 1, answers.length - 1)]();
  });
  return { url: `http://127.0.0.1:${server.addr.port}/svc/graphql`, arrivals, server };
}

const busy = (retryAfter: string) => () =>
  Response.json({ errors: [{ message: 'busy', extensions: { code: 'TenantBusy' } }] }, {
    status: 429,
    headers: { 'retry-after': retryAfter },
  });
const ok = () => Response.json({ data: { ok: true } });

Deno.test('a 429 waits at least its retry-after (up to capMs), then the retry succeeds', async () => {
  const s = serve([busy('0.3'), busy('0.3'), ok]);
  try {
    const client = createSvcClient({ url: s.url, retry: { retries: 3, baseMs: 10, capMs: 5000 } });
    assert.deepEqual(await client.request('{ ok }'), { ok: true });
    assert.equal(s.arrivals.length, 3);
    for (const gap of s.arrivals.slice(1).map((t, i) => t - s.arrivals[i])) {
      assert.ok(gap >= 290, `waited ${gap} ms for a 300 ms retry-after`);
    }
  } finally {
    await s.server.shutdown();
  }
});

Deno.test('retries run out: the last 429 is thrown with its code and retry-after', async () => {
  const s = serve([busy('0')]);
  try {
    const client = createSvcClient({ url: s.url, retry: { retries: 2, baseMs: 5, capMs: 20 } });
    const error = await client.request('{ ok }').catch((e) => e);
    assert.ok(error instanceof SvcHttpError);
    assert.equal(error.code, 'TenantBusy');
    assert.equal(error.retryAfterMs, 0);
    assert.equal(s.arrivals.length, 3);
  } finally {
    await s.server.shutdown();
  }
});

Deno.test('an abort during a retry wait ends the call with the signal reason; no more attempts', async () => {
  const s = serve([busy('10')]);
  try {
    const client = createSvcClient({
      url: s.url,
      retry: { retries: 3, baseMs: 10, capMs: 60_000 },
    });
    const controller = new AbortController();
    const pending = client.request('{ ok }', undefined, { signal: controller.signal }).catch((e) =>
      e
    );
    while (s.arrivals.length === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort(new Error('user left'));
    const error = await pending;
    assert.equal((error as Error).message, 'user left');
    assert.equal(s.arrivals.length, 1);
  } finally {
    await s.server.shutdown();
  }
});

Deno.test('timeoutMs: an answer slower than it is an SvcNetworkError', async () => {
  let release!: () => void;
  const held = new Promise<void>((r) => release = r);
  const server = Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: () => {} }, async (req) => {
    await req.body?.cancel();
    await held;
    return ok();
  });
  try {
    const client = createSvcClient({
      url: `http://127.0.0.1:${server.addr.port}/svc/graphql`,
      timeoutMs: 50,
      retry: { retries: 0 },
    });
    const error = await client.request('{ ok }').catch((e) => e);
    assert.ok(error instanceof SvcNetworkError, String(error));
    assert.ok(error.cause !== undefined);
  } finally {
    release();
    await server.shutdown();
  }
});
