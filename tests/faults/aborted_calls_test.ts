/**
 * Aborted calls (docs/operations.md "Faults"), a defect once measured: GraphQL POSTs (and REST
 * uploads) aborted by the browser while the upstream was not answering kept their upstream calls
 * open until the deadline, holding every in-flight slot (503 ProxyBusy for everyone else). An
 * aborted call must cancel its upstream call and release its slot at once, on both hosts.
 *
 * The upstream deadline is set to ten minutes, so only the abort can close the upstream
 * connections within the test's own waits; the stand-in sees each connection closed by the
 * gateway, the in-flight gauge is back to 0, and a fresh request is admitted and answered.
 *
 * Both hosts run node:http, which reports a vanished caller whatever the request's size. (Deno.serve,
 * the handler of `deno task serve:parallel`, reports one only for a request that arrived whole in
 * one read of under about 500 bytes, measured on Deno 2.9.6: docs/operations.md "Faults".)
 */
import assert from 'node:assert/strict';
import { type Gateway, type HostKind, HOSTS, startGateway } from '../helpers/gateway.ts';
import {
  ANSWER,
  startUpstreamStandIn,
  type UpstreamStandIn,
} from '../../scripts/faults/upstream/stand_in.ts';
import { readGauges, settles } from '../../scripts/faults/harness.ts';

const SMALL_QUERY = JSON.stringify({ query: '{ currentUser { id } }' });
/** A document of about 4 KiB (what real app documents weigh), naming no bot. */
const LARGE_QUERY = JSON.stringify({
  query: `{ currentUser { id } }\n${'# padding of a real-sized document\n'.repeat(110)}`,
});
const UPLOAD = '/svc/api/filestorage/upload/useraccount';
const LONG_DEADLINE_MS = 600_000;
/** Far below LONG_DEADLINE_MS: what "at once" must beat here (not a timing assertion). */
const WAIT_MS = 10_000;

/** A stalling stand-in and a gateway (metrics on, ten-minute deadline) on `kind`. */
async function stalled(
  kind: HostKind,
  body: (gateway: Gateway, upstream: UpstreamStandIn) => Promise<void>,
): Promise<void> {
  const upstream = startUpstreamStandIn({ kind: 'stall' });
  const gateway = await startGateway(kind, { timeoutMs: LONG_DEADLINE_MS }, {
    SVC_TOKEN: 'master-token',
    SVC_API_BASE: upstream.url,
    METRICS: '1',
  });
  try {
    await body(gateway, upstream);
  } finally {
    await gateway.stop();
    await upstream.close();
  }
}

function postGraphql(url: string, text: string, signal?: AbortSignal): Promise<Response> {
  return fetch(`${url}/svc/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: text,
    signal,
  });
}

function upload(url: string, body: BodyInit, signal?: AbortSignal): Promise<Response> {
  return fetch(`${url}${UPLOAD}`, {
    method: 'POST',
    headers: { 'content-type': 'image/png' },
    body,
    signal,
    // @ts-ignore: duplex is needed for a streamed request body
    duplex: 'half',
  });
}

/** 40 POSTs of `query`, 32 admitted and held by the stalled upstream, then all aborted. */
async function fortyAborted(gateway: Gateway, upstream: UpstreamStandIn, query: string) {
  const abort = new AbortController();
  let answered = 0;
  const calls = Array.from({ length: 40 }, () =>
    postGraphql(gateway.url, query, abort.signal).then(
      async (r) => (answered++, await r.body?.cancel(), r.status),
      () => 'aborted',
    ));
  await upstream.waitRequests(32, WAIT_MS);
  // the 8 past the ceiling are answered at once; abort only once their answers arrived (on a
  // loaded machine one may still be on its way when the 32th reaches the upstream)
  await settles(() => Promise.resolve(answered), (n) => n >= 8, WAIT_MS);
  assert.equal((await readGauges(gateway.url)).graphqlInFlight, 32, 'every slot held');
  const refused = await postGraphql(gateway.url, query);
  assert.equal(refused.status, 503, 'the ceiling holds while the calls are open');
  await refused.body?.cancel();

  abort.abort();
  const outcomes = await Promise.all(calls);
  assert.equal(outcomes.filter((o) => o === 503).length, 8, 'the 8 past the ceiling got 503');
  assert.equal(outcomes.filter((o) => o === 'aborted').length, 32, 'the 32 admitted were aborted');
  await upstream.waitOpenAtMost(0, WAIT_MS);
  assert.equal(upstream.closedByGateway, 32, 'each upstream call closed by the gateway');
  const gauge = await settles(
    () => readGauges(gateway.url),
    (g) => g.graphqlInFlight === 0,
    WAIT_MS,
  );
  assert.ok(gauge.held, `in flight: ${gauge.last.graphqlInFlight}`);

  upstream.mode = { kind: 'answer' };
  const fresh = await postGraphql(gateway.url, query);
  assert.equal(fresh.status, 200, 'a fresh request is admitted right after');
  assert.equal(await fresh.text(), ANSWER);
}

/** Waits for `n` uploads in flight and `n` upstream connections, aborts, checks the release. */
async function uploadsReleased(
  gateway: Gateway,
  upstream: UpstreamStandIn,
  start: (signal: AbortSignal) => Promise<unknown>,
  n: number,
) {
  const abort = new AbortController();
  const calls = Array.from({ length: n }, () => start(abort.signal).catch(() => 'aborted'));
  const held = await settles(() => readGauges(gateway.url), (g) => g.restInFlight === n, WAIT_MS);
  assert.ok(held.held, `rest in flight: ${held.last.restInFlight}`);
  await settles(() => Promise.resolve(upstream.accepted), (a) => a >= n, WAIT_MS);

  abort.abort();
  await Promise.all(calls);
  await upstream.waitOpenAtMost(0, WAIT_MS);
  const gauge = await settles(() => readGauges(gateway.url), (g) => g.restInFlight === 0, WAIT_MS);
  assert.ok(gauge.held, `rest in flight: ${gauge.last.restInFlight}`);

  upstream.mode = { kind: 'answer' };
  const fresh = await upload(gateway.url, new Uint8Array(1024));
  assert.equal(fresh.status, 200, await fresh.text());
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] 40 aborted small GraphQL POSTs cancel their upstream calls and free their slots`, async () => {
    await stalled(kind, (gateway, upstream) => fortyAborted(gateway, upstream, SMALL_QUERY));
  });

  Deno.test(`[${kind}] 40 aborted real-sized GraphQL POSTs cancel their upstream calls and free their slots`, async () => {
    await stalled(kind, (gateway, upstream) => fortyAborted(gateway, upstream, LARGE_QUERY));
  });

  Deno.test(`[${kind}] uploads aborted mid-body cancel their upstream calls and free their slots`, async () => {
    await stalled(
      kind,
      (gateway, upstream) =>
        uploadsReleased(
          gateway,
          upstream,
          (signal) => upload(gateway.url, stalledBody(), signal),
          8,
        ),
    );
  });

  Deno.test(`[${kind}] uploads aborted while the upstream is silent free their slots (whole body sent)`, async () => {
    await stalled(kind, (gateway, upstream) =>
      uploadsReleased(
        gateway,
        upstream,
        (signal) => upload(gateway.url, new Uint8Array(1024), signal),
        8,
      ));
  });
}

/** A request body that sends 256 KiB and then never ends. */
function stalledBody(): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream({
    pull(controller) {
      if (sent) return new Promise(() => {});
      sent = true;
      controller.enqueue(new Uint8Array(256 * 1024));
    },
  });
}
