/**
 * REST uploads on both hosts: SPEC "Route table" (the five upload paths) and
 * "Forwarding rules" (authorization plus the request's content-type only, the
 * upload's own query string kept, the body streamed, the answer piped back).
 */
import assert from 'node:assert/strict';
import { SANDBOX_TOKEN, WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import {
  assertNothingReached,
  assertRefusal,
  forwarded,
  rawRequest,
} from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
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
    await withGateway(kind, { env: { REST_MAX_CONCURRENT: '1' } }, async ({ sandbox, gateway }) => {
      sandbox.switches.delays = [{ ms: 400, match: { path: '/api/filestorage/upload/bot' } }];
      const slow = upload(gateway.url, `/filestorage/upload/bot?botID=${bot1}`);
      await new Promise((r) => setTimeout(r, 150));
      const count = forwarded(sandbox).length;
      const busy = await upload(gateway.url, `/filestorage/upload/livechat?botID=${bot1}`);
      await assertRefusal(busy, 503, 'ProxyBusy');
      assert.equal(busy.headers.get('retry-after'), '5');
      assert.equal(forwarded(sandbox).length, count);
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
      // No declared length: the stream is cut at the ceiling, the upstream never completes the upload.
      const chunk = new Uint8Array(1024 * 1024).fill(66);
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent++ >= 27) controller.close();
          else controller.enqueue(chunk);
        },
      });
      const streamed = await fetch(`${gateway.url}/svc/api/filestorage/upload/bot?botID=${bot1}`, {
        method: 'POST',
        body: stream,
        headers: { 'content-type': 'multipart/form-data; boundary=x' },
      }).catch(() => null);
      if (streamed) await assertRefusal(streamed, 413, 'RequestTooLarge');
      assert.ok(
        forwarded(sandbox).every((r) =>
          r.upload?.fileId === null || r.upload?.file?.bytes !== 27 * 1024 * 1024
        ),
      );
    });
  });
}
