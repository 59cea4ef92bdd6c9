/**
 * REST uploads on both hosts: SPEC "Route table" (the five upload paths) and
 * "Forwarding rules" (authorization plus the request's content-type only, the
 * upload's own query string kept, the body streamed, the answer piped back).
 */
import assert from 'node:assert/strict';
import { type Sandbox, SANDBOX_TOKEN, WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import {
  assertNothingReached,
  assertRefusal,
  forwarded,
  rawRequest,
} from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { waitForGauge } from '../helpers/metrics.ts';
import { withGateway } from '../helpers/setup.ts';

const bot1 = WORLD_IDS.bot1;

function upload(url: string, path: string, headers: Record<string, string> = {}, bytes = 1000) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes).fill(65)], { type: 'image/png' }), 'a.png');
  return fetch(`${url}/svc/api${path}`, { method: 'POST', body: form, headers });
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] an upload is forwarded with the token, its content-type and its query string only`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const res = await upload(
        gateway.url,
        `/filestorage/upload/bot?fileType=Image&botID=${bot1}`,
        {
          cookie: 'a=b',
          authorization: 'Bearer browser',
          'x-extra': '1',
        },
      );
      const body = await res.json();
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.match(body.id, /^[0-9a-f]{24}$/);
      const seen = forwarded(sandbox).at(-1)!;
      assert.equal(seen.path, '/api/filestorage/upload/bot');
      assert.equal(seen.search, `?fileType=Image&botID=${bot1}`);
      assert.equal(seen.headers.authorization, `Bearer ${SANDBOX_TOKEN}`);
      assert.match(seen.headers['content-type'], /^multipart\/form-data; boundary=/);
      assert.equal(seen.upload?.file?.bytes, 1000);
      for (const name of ['cookie', 'x-extra', 'origin']) {
        assert.equal(seen.headers[name], undefined, name);
      }
    });
  });

  Deno.test(`[${kind}] the five paths forward; every other path is RestPathNotAllowed`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      for (const kindPath of ['bot', 'livechat', 'plugin', 'widget']) {
        const res = await upload(gateway.url, `/filestorage/upload/${kindPath}?botID=${bot1}`);
        assert.equal(res.status, 200, kindPath);
        await res.body?.cancel();
      }
      const account = await upload(gateway.url, '/filestorage/upload/useraccount');
      assert.equal(account.status, 200, 'useraccount with the gate off');
      await account.body?.cancel();
      await assertNothingReached(sandbox, async () => {
        for (
          const path of ['/filestorage/upload/other', '/graphql', '/filestorage/upload/bot/x', '']
        ) {
          await assertRefusal(await upload(gateway.url, path), 403, 'RestPathNotAllowed');
        }
        const get = await fetch(`${gateway.url}/svc/api/other`);
        await assertRefusal(get, 403, 'RestPathNotAllowed');
        const wrongMethod = await fetch(
          `${gateway.url}/svc/api/filestorage/upload/bot?botID=${bot1}`,
        );
        assert.equal(wrongMethod.status, 405);
        assert.equal(wrongMethod.headers.get('allow'), 'POST');
        assert.equal(await wrongMethod.text(), '');
      });
    });
  });

  Deno.test(`[${kind}] exactly one botID, fenced like a GraphQL bot`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      await assertNothingReached(sandbox, async () => {
        await assertRefusal(
          await upload(gateway.url, '/filestorage/upload/bot'),
          400,
          'InvalidRequest',
        );
        await assertRefusal(
          await upload(gateway.url, `/filestorage/upload/bot?botID=${bot1}&botid=${bot1}`),
          400,
          'InvalidRequest',
        );
      });
      const before = forwarded(sandbox).length;
      const foreign = await upload(
        gateway.url,
        '/filestorage/upload/widget?botID=ffffffffffffffffffffffff',
      );
      const message = await assertRefusal(foreign, 403, 'BotNotAllowed');
      assert.equal(message, 'Bot ffffffffffffffffffffffff is not one this deployment may use');
      const spelled = await upload(
        gateway.url,
        '/filestorage/upload/bot?BOTID=ffffffffffffffffffffffff',
      );
      await assertRefusal(spelled, 403, 'BotNotAllowed');
      assert.equal(
        forwarded(sandbox).length,
        before,
        'only the fence question reached the upstream',
      );
    });
  });

  Deno.test(`[${kind}] REST_MAX_CONCURRENT and the 25 MiB ceiling`, async () => {
    const env = { REST_MAX_CONCURRENT: '1', METRICS: '1' };
    await withGateway(kind, { env }, async ({ sandbox, gateway }) => {
      sandbox.switches.delays = [{ ms: 1_000, match: { path: '/api/filestorage/upload/bot' } }];
      const slow = upload(gateway.url, `/filestorage/upload/bot?botID=${bot1}`);
      // the slot is held once the gauge says so and the upload reached the upstream (which
      // holds its answer a second)
      const count = forwarded(sandbox).length + 1;
      await waitForGauge(
        gateway.url,
        'svc_rest_in_flight',
        1,
        () => forwarded(sandbox).length === count,
      );
      const busy = await upload(gateway.url, `/filestorage/upload/livechat?botID=${bot1}`);
      await assertRefusal(busy, 503, 'ProxyBusy');
      assert.equal(busy.headers.get('retry-after'), '5');
      assert.equal(forwarded(sandbox).length, count);
      assert.equal((await slow).status, 200, 'the held upload completes');
      await (await slow).body?.cancel();
      sandbox.switches.delays = [];
      await assertNothingReached(sandbox, async () => {
        const host = new URL(gateway.url).host;
        const res = await rawRequest(
          gateway.url,
          `POST /svc/api/filestorage/upload/bot?botID=${bot1} HTTP/1.1\r\nhost: ${host}\r\ncontent-type: multipart/form-data; boundary=x\r\ncontent-length: ${
            26 * 1024 * 1024
          }`,
          '--x\r\n',
        );
        assert.equal(res.status, 413);
        assert.equal(JSON.parse(res.body).errors[0].extensions.code, 'RequestTooLarge');
      });
      await streamedOverCeiling(sandbox, gateway.url);
    });
  });
}

/** The REST upload ceiling (SPEC "Size and capacity": REST upload over 25 MiB). */
const CEILING = 25 * 1024 * 1024;

/**
 * No declared length: a real multipart `file` part of 27 MiB, streamed. The gateway forwards at
 * most the ceiling and cuts the stream there, so the upstream never completes the upload; the
 * caller gets 413 RequestTooLarge, or the reset SPEC "Size and capacity" allows (the socket of a
 * caller that keeps sending is destroyed).
 */
async function streamedOverCeiling(sandbox: Sandbox, url: string) {
  const before = forwarded(sandbox).length;
  const enc = new TextEncoder();
  const head = enc.encode(
    '--x\r\ncontent-disposition: form-data; name="file"; filename="a.png"\r\n' +
      'content-type: image/png\r\n\r\n',
  );
  const chunk = new Uint8Array(1024 * 1024).fill(66);
  const parts = [head, ...Array.from({ length: 27 }, () => chunk), enc.encode('\r\n--x--\r\n')];
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = parts.shift();
      if (next) controller.enqueue(next);
      else controller.close();
    },
  });
  const streamed = await fetch(`${url}/svc/api/filestorage/upload/bot?botID=${bot1}`, {
    method: 'POST',
    body: stream,
    headers: { 'content-type': 'multipart/form-data; boundary=x' },
  }).catch((error: Error) => error);
  if (streamed instanceof Response) await assertRefusal(streamed, 413, 'RequestTooLarge');
  else assert.ok(streamed instanceof TypeError, `a reset, not ${streamed}`);
  // the upstream saw the request start, then its body cut short, never past the ceiling
  const reached = await until(() => forwarded(sandbox).slice(before).find((r) => r.answer));
  assert.equal(forwarded(sandbox).length, before + 1);
  assert.equal(reached.answer, 'cut', `the upstream answered ${JSON.stringify(reached.answer)}`);
  assert.ok(reached.bodyBytes <= CEILING, `${reached.bodyBytes} bytes reached the upstream`);
  assert.equal(reached.upload, null, 'no upload was answered');
}

/** Polls `find` every 10 ms until it answers something (5 s at most). */
async function until<T>(find: () => T | undefined): Promise<T> {
  const end = Date.now() + 5_000;
  for (let found = find();; found = find()) {
    if (found !== undefined) return found;
    if (Date.now() > end) throw new Error('the upstream recorded nothing');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
