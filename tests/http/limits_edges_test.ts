/**
 * Every ceiling of the gate-off routes at its edge, on both hosts (SPEC "Ceilings", "Size and
 * capacity"): a body exactly at the ceiling is admitted and one byte past it is refused with the
 * spec's code, with a declared content-length and streamed without one:
 *
 * - GraphQL POST body 2 MiB (413 RequestTooLarge);
 * - REST upload body 25 MiB (413 RequestTooLarge);
 * - admin body 64 KiB and /svc/admin/session 4 KiB (413 AdminBodyTooLarge);
 * - the admin password's 16-character minimum (15: 500 AdminMisconfigured);
 * - at most 5,000 ids read per answer (the 5,000th is bound, the 5,001st is not).
 *
 * The numbers are written here from the spec, never read from the code. One gateway per host
 * carries the whole file but the 15-character password. Every refusal checks what reached the
 * upstream.
 */
import assert from 'node:assert/strict';
import { type Sandbox, WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { assertNothingReached, assertRefusal, forwarded } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';
import { admin, cookieOf, FAST } from '../admin/helpers.ts';

const KIB = 1024;
const MIB = 1024 * KIB;
const GRAPHQL_CEILING = 2 * MIB;
const UPLOAD_CEILING = 25 * MIB;
const ADMIN_CEILING = 64 * KIB;
const SESSION_CEILING = 4 * KIB;
/** Exactly 16 characters: the spec's minimum. */
const PASSWORD_16 = 'sixteen-chars-16';

const enc = new TextEncoder();

/** `head` + 'x' padding + `tail`, exactly `total` bytes (ASCII). */
function padded(head: string, tail: string, total: number): string {
  const text = head + 'x'.repeat(total - head.length - tail.length) + tail;
  assert.equal(enc.encode(text).byteLength, total);
  return text;
}

/** A GraphQL body of exactly `total` bytes (the padding is a comment of the document). */
const graphqlBody = (total: number) => padded('{"query":"{ currentUser { id } } #', '"}', total);

/** `bytes` as a stream of 64 KiB chunks: sent without content-length (chunked). */
function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.slice(at, at + 64 * KIB));
      at += 64 * KIB;
    },
  });
}

/** POSTs `body` to `url`, declared or streamed; a reset (allowed past a ceiling) is a TypeError. */
function send(
  url: string,
  body: Uint8Array<ArrayBuffer>,
  headers: Record<string, string>,
  streamed: boolean,
): Promise<Response | TypeError> {
  return fetch(url, {
    method: 'POST',
    headers,
    body: streamed ? streamOf(body) : body,
  }).catch((error: TypeError) => error);
}

/** A multipart upload body of exactly `total` bytes (one file part). */
function uploadBody(total: number): Uint8Array<ArrayBuffer> {
  const head = '--x\r\ncontent-disposition: form-data; name="file"; filename="a.png"\r\n' +
    'content-type: image/png\r\n\r\n';
  return enc.encode(padded(head, '\r\n--x--\r\n', total));
}

/** Asserts a 413 with `code`, or (streamed only) the reset the oversize rule allows. */
async function assertOver(res: Response | TypeError, code: string, streamed: boolean) {
  if (res instanceof TypeError) {
    assert.ok(streamed, `a declared body past the ceiling is answered, not reset: ${res}`);
    return;
  }
  await assertRefusal(res, 413, code);
}

/** The upstream's record of the last upload request after `before`. */
async function lastUpload(sandbox: Sandbox, before: number) {
  const end = Date.now() + 10_000;
  while (Date.now() < end) {
    const record = forwarded(sandbox).slice(before).find((r) => r.answer);
    if (record) return record;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the upstream recorded no upload');
}

async function graphqlEdges(sandbox: Sandbox, url: string) {
  const headers = { 'content-type': 'application/json' };
  for (const streamed of [false, true]) {
    const how = streamed ? 'streamed' : 'declared';
    const before = forwarded(sandbox).length;
    const at = await send(
      `${url}/svc/graphql`,
      enc.encode(graphqlBody(GRAPHQL_CEILING)),
      headers,
      streamed,
    );
    assert.ok(at instanceof Response, `${how}: ${at}`);
    const text = await at.text();
    assert.equal(at.status, 200, `${how} 2 MiB exactly is admitted: ${text.slice(0, 300)}`);
    assert.equal(forwarded(sandbox).length, before + 1, `${how}: forwarded`);
    assert.equal(forwarded(sandbox).at(-1)!.operations[0].rootFields[0], 'currentUser');
    await assertNothingReached(sandbox, async () => {
      const over = await send(
        `${url}/svc/graphql`,
        enc.encode(graphqlBody(GRAPHQL_CEILING + 1)),
        headers,
        streamed,
      );
      await assertOver(over, 'RequestTooLarge', streamed);
    });
  }
}

async function uploadEdges(sandbox: Sandbox, url: string) {
  const path = `${url}/svc/api/filestorage/upload/bot?botID=${WORLD_IDS.bot1}`;
  const headers = { 'content-type': 'multipart/form-data; boundary=x' };
  for (const streamed of [false, true]) {
    const how = streamed ? 'streamed' : 'declared';
    let before = forwarded(sandbox).length;
    const at = await send(path, uploadBody(UPLOAD_CEILING), headers, streamed);
    assert.ok(at instanceof Response, `${how}: ${at}`);
    const text = await at.text();
    assert.equal(at.status, 200, `${how} 25 MiB exactly is admitted: ${text.slice(0, 300)}`);
    const whole = await lastUpload(sandbox, before);
    assert.equal(whole.bodyBytes, UPLOAD_CEILING, `${how}: the whole body reached the upstream`);
    assert.notEqual(whole.upload, null, `${how}: the upstream took the upload`);
    before = forwarded(sandbox).length;
    if (!streamed) {
      await assertNothingReached(sandbox, async () => {
        const over = await send(path, uploadBody(UPLOAD_CEILING + 1), headers, false);
        await assertOver(over, 'RequestTooLarge', false);
      });
      continue;
    }
    // streamed: the gateway forwards up to the ceiling and cuts the stream there
    const over = await send(path, uploadBody(UPLOAD_CEILING + 1), headers, true);
    await assertOver(over, 'RequestTooLarge', true);
    const cut = await lastUpload(sandbox, before);
    assert.equal(cut.answer, 'cut', `the upstream answered ${JSON.stringify(cut.answer)}`);
    assert.equal(cut.upload, null, 'no upload was answered');
    assert.ok(cut.bodyBytes <= UPLOAD_CEILING, `${cut.bodyBytes} bytes reached the upstream`);
  }
}

async function adminEdges(sandbox: Sandbox, url: string) {
  const session = (total: number) => padded(`{"password":"${PASSWORD_16}","pad":"`, '"}', total);
  // the 16-character password unlocks the panel: 16 is enough
  const unlocked = await admin(url, '/session', {
    method: 'POST',
    body: session(SESSION_CEILING),
    header: null,
  });
  const text = await unlocked.text();
  assert.equal(unlocked.status, 200, `4 KiB exactly is read: ${text}`);
  const cookie = cookieOf(unlocked);
  assert.ok(cookie, 'a cookie was set');
  await assertNothingReached(sandbox, async () => {
    const over = await admin(url, '/session', {
      method: 'POST',
      body: session(SESSION_CEILING + 1),
      header: null,
    });
    await assertRefusal(over, 413, 'AdminBodyTooLarge');
    assert.equal(over.headers.get('set-cookie'), null);
    const body = (total: number) => padded('{"pad":"', '"}', total);
    for (
      const [path, code] of [['/bots', 'AdminWorkspaceRequired'], [
        '/grants',
        'AdminGrantIncomplete',
      ]]
    ) {
      const at = await admin(url, path, { method: 'POST', cookie, body: body(ADMIN_CEILING) });
      await assertRefusal(at, 422, code); // read whole and judged: 64 KiB exactly is admitted
      const past = await admin(url, path, {
        method: 'POST',
        cookie,
        body: body(ADMIN_CEILING + 1),
      });
      await assertRefusal(past, 413, 'AdminBodyTooLarge');
    }
  });
}

/** 24-hex ids `from`..`from + count - 1` with a marker (distinct from every world id). */
const idsFrom = (marker: string, from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `${marker}${(from + i).toString(16).padStart(20, '0')}`);

async function learnedEdges(sandbox: Sandbox, url: string) {
  const learn = 'query Learn($botID: BotID!) { bot(id: $botID) { id } }';
  const flow =
    'query F($botID: BotID!, $flowID: FlowID!) { bot(id: $botID) { flow(flowID: $flowID) { id } } }';
  const post = (body: unknown) =>
    fetch(`${url}/svc/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  for (const [marker, count] of [['eeee', 5_000], ['dddd', 5_001]] as const) {
    const ids = idsFrom(marker, 0, count);
    sandbox.switches.status = {
      status: 200,
      body: JSON.stringify({ data: { ids } }), // no other id: exactly `count` read
      contentType: 'application/json',
      match: { operationName: 'Learn' },
    };
    try {
      const taught = await post({ query: learn, variables: { botID: WORLD_IDS.bot1 } });
      assert.equal(taught.status, 200, await taught.text());
    } finally {
      sandbox.switches.status = null;
    }
    const asBot2 = (id: string) =>
      post({ query: flow, variables: { botID: WORLD_IDS.bot2, flowID: id } });
    await assertNothingReached(sandbox, async () => {
      await assertRefusal(await asBot2(ids[4_999]), 403, 'ResourceNotAllowed');
    });
    if (count === 5_001) {
      const past = await asBot2(ids[5_000]);
      assert.equal(past.status, 200, 'the 5,001st id of one answer was not read');
      await past.body?.cancel();
    }
  }
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] ceilings at their edge: at the limit admitted, one past it refused`, async (t) => {
    const env = { ADMIN_PASSWORD: PASSWORD_16, SVC_RESOURCE_FENCE: 'bound' };
    await withGateway(kind, { env, options: FAST }, async ({ sandbox, gateway }) => {
      await t.step(
        'GraphQL body: 2 MiB exactly, then 2 MiB + 1 (413 RequestTooLarge)',
        () => graphqlEdges(sandbox, gateway.url),
      );
      await t.step(
        'REST upload: 25 MiB exactly, then 25 MiB + 1 (413 RequestTooLarge)',
        () => uploadEdges(sandbox, gateway.url),
      );
      await t.step(
        'admin: 4 KiB session and 64 KiB bodies exactly, then one byte more (413)',
        () => adminEdges(sandbox, gateway.url),
      );
      await t.step(
        'ids read per answer: the 5,000th is bound, the 5,001st is not',
        () => learnedEdges(sandbox, gateway.url),
      );
    });
  });

  Deno.test(`[${kind}] a 15-character admin password is 500 AdminMisconfigured`, async () => {
    const env = { ADMIN_PASSWORD: PASSWORD_16.slice(1) };
    await withGateway(kind, { env, options: FAST }, async ({ sandbox, gateway }) => {
      await assertNothingReached(sandbox, async () => {
        const res = await admin(gateway.url, '/session', {
          method: 'POST',
          body: { password: PASSWORD_16.slice(1) },
          header: null,
        });
        await assertRefusal(res, 500, 'AdminMisconfigured');
        assert.equal(res.headers.get('set-cookie'), null);
      });
      const health = await fetch(`${gateway.url}/svc/healthz`);
      assert.equal(health.status, 503);
      assert.deepEqual(await health.json(), { ok: false });
    });
  });
}
