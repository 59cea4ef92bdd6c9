/**
 * The answer-size bound (docs/configuration.md "Upstream", UPSTREAM_ANSWER_MAX_BYTES; not a spec
 * number): its configuration (option over UPSTREAM_ANSWER_MAX_BYTES over the 8 MiB default) and the
 * fetch-based forward every host but Node's undici one uses when an app brings its own fetch: an
 * answer over the bound is refused 502 UpstreamAnswerTooLarge whether declared or chunked, an
 * answer within it passes whole, every byte kept told to the memory count as it arrives, and a
 * caller that goes away cancels the call at once (the stand-in sees its connection closed). The
 * undici forward and the piped REST answers are covered on both hosts by
 * tests/faults/upstream_http_test.ts.
 */
import assert from 'node:assert/strict';
import { resolveConfig } from '../../src/config/resolve.ts';
import { DEFAULTS } from '../../src/config/defaults.ts';
import { fetchPostText } from '../../src/upstream/outbound.ts';
import { startUpstreamStandIn } from '../../scripts/faults/upstream/stand_in.ts';

const LIMIT = 64 * 1024;
const HEADERS = { 'content-type': 'application/json' };

Deno.test('upstreamAnswerMaxBytes: option over UPSTREAM_ANSWER_MAX_BYTES over 8 MiB', () => {
  assert.equal(DEFAULTS.upstreamAnswerMaxBytes, 8 * 1024 * 1024);
  assert.equal(resolveConfig({}, {}).upstreamAnswerMaxBytes, 8 * 1024 * 1024);
  assert.equal(
    resolveConfig({}, { UPSTREAM_ANSWER_MAX_BYTES: '1024' }).upstreamAnswerMaxBytes,
    1024,
  );
  assert.equal(
    resolveConfig({ upstreamAnswerMaxBytes: 2048 }, { UPSTREAM_ANSWER_MAX_BYTES: '1024' })
      .upstreamAnswerMaxBytes,
    2048,
  );
  assert.equal(
    resolveConfig({}, { UPSTREAM_ANSWER_MAX_BYTES: 'lots' }).upstreamAnswerMaxBytes,
    8 * 1024 * 1024,
  );
});

Deno.test('the fetch forward: over the bound refused (declared, chunked), within it whole', async () => {
  const upstream = startUpstreamStandIn({ kind: 'large', bytes: LIMIT * 2, declared: true });
  const post = fetchPostText(fetch);
  // what the memory count is told as the answer arrives (docs/operations.md "Memory")
  let seen = 0;
  const onAnswerBytes = (bytes: number) => void (seen += bytes);
  try {
    for (const declared of [true, false]) {
      seen = 0;
      upstream.mode = { kind: 'large', bytes: LIMIT * 2, declared };
      const over = await post(`${upstream.url}/graphql`, HEADERS, '{}', 5_000, {
        maxAnswerBytes: LIMIT,
        onAnswerBytes,
      });
      assert.ok('refused' in over, `declared: ${declared}`);
      assert.equal(over.refused.code, 'UpstreamAnswerTooLarge');
      // nothing past the bound is kept or counted; a declared length over it reads nothing
      assert.ok(seen <= LIMIT, `declared: ${declared}: ${seen}`);
      if (declared) assert.equal(seen, 0);
    }
    seen = 0;
    upstream.mode = { kind: 'large', bytes: LIMIT, declared: false };
    const within = await post(`${upstream.url}/graphql`, HEADERS, '{}', 5_000, {
      maxAnswerBytes: LIMIT,
      onAnswerBytes,
    });
    assert.ok('answer' in within);
    assert.equal(within.answer.text.length, LIMIT);
    assert.equal(seen, LIMIT, 'every byte counted as it arrived');
    assert.equal(JSON.parse(within.answer.text).data.blob.length, LIMIT - 20);
    await upstream.waitOpenAtMost(0);
  } finally {
    await upstream.close();
  }
});

Deno.test('the fetch forward: a caller that goes away cancels the call at once', async () => {
  const upstream = startUpstreamStandIn({ kind: 'stall' });
  const post = fetchPostText(fetch);
  try {
    const caller = new AbortController();
    const call = post(`${upstream.url}/graphql`, HEADERS, '{}', 600_000, {
      caller: caller.signal,
    });
    await upstream.waitRequests(1);
    caller.abort();
    const outcome = await call;
    assert.ok('refused' in outcome);
    assert.equal(outcome.refused.code, 'ProxyUpstreamUnavailable');
    assert.match(outcome.refused.message, /caller went away/);
    await upstream.waitOpenAtMost(0);
    assert.equal(upstream.closedByGateway, 1);
  } finally {
    await upstream.close();
  }
});
