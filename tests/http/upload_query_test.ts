/**
 * Upload query strings are rebuilt, never passed on (SPEC "Forwarding rules": nothing the client
 * sends is forwarded as it arrived; "Route table": exactly one botID, any spelling of the name
 * read, none or two 400 InvalidRequest), on both hosts. A spelling is any name that, after
 * percent-decoding, case folding and dropping a trailing `[...]`, is botID: a second spelling
 * beside the caller's own bot is refused with nothing forwarded, a lone one is fenced; only the
 * parameters a path takes travel, under their own names, re-encoded.
 */
import assert from 'node:assert/strict';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { assertNothingReached, assertRefusal, forwarded } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';

const own = WORLD_IDS.bot1;
const foreign = 'ffffffffffffffffffffffff';

function upload(url: string, pathAndQuery: string) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(100).fill(65)], { type: 'image/png' }), 'a.png');
  return fetch(`${url}/svc/api/filestorage/upload/${pathAndQuery}`, { method: 'POST', body: form });
}

for (const kind of HOSTS) {
  Deno.test(`[${kind}] a second spelling of botID beside the own bot: 400, nothing forwarded`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      await assertNothingReached(sandbox, async () => {
        for (
          const query of [
            `botID=${own}&botID[]=${foreign}`,
            `botID=${own}&botID%5B%5D=${foreign}`,
            `botID=${own}&botID[0]=`,
            `botID=${own}&BOTID=`,
            `botID=${own}&bot%49D=${foreign}`,
            `botID=${own}&botid[a][b]=${foreign}`,
            `fileType=Image&botID[]=${own}&botID[]=${own}`,
          ]
        ) {
          await assertRefusal(await upload(gateway.url, `bot?${query}`), 400, 'InvalidRequest');
        }
      });
    });
  });

  Deno.test(`[${kind}] a lone spelling of botID is fenced, then forwarded as botID`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const before = forwarded(sandbox).length;
      for (const name of ['botID[]', 'botID[0]', 'BOTID', 'bot%49D']) {
        const res = await upload(gateway.url, `widget?${name}=${foreign}`);
        await assertRefusal(res, 403, 'BotNotAllowed');
      }
      assert.equal(forwarded(sandbox).length, before, 'a foreign bot reached nothing');
      const res = await upload(gateway.url, `livechat?bot%49D%5B%5D=${own}`);
      assert.equal(res.status, 200, await res.text());
      const seen = forwarded(sandbox).at(-1)!;
      assert.equal(seen.path, '/api/filestorage/upload/livechat');
      assert.equal(seen.search, `?botID=${own}`);
    });
  });

  Deno.test(`[${kind}] only the parameters a path takes travel, re-encoded`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const cases: [string, string][] = [
        [
          `bot?x=1&fileType=Image&pluginID=p1&botID=${own}&fileType=Document&filetype=Audio&`,
          `?fileType=Image&botID=${own}`,
        ],
        [
          `plugin?pluginID=p%201&fileType=Im%26age%3Dx&botID=${own}&op=Other&debug`,
          `?fileType=Im%26age%3Dx&botID=${own}&pluginID=p+1`,
        ],
        [`useraccount?fileType=Image&botID=${own}&userID=u1`, '?fileType=Image'],
        [`useraccount?botID=${foreign}`, ''],
      ];
      for (const [sent, expected] of cases) {
        const res = await upload(gateway.url, sent);
        assert.equal(res.status, 200, `${sent}: ${await res.clone().text()}`);
        await res.body?.cancel();
        const seen = forwarded(sandbox).at(-1)!;
        assert.equal(seen.search, expected, sent);
      }
    });
  });
}
