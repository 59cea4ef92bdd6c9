/**
 * A bot-scoped upload's answer teaches the resource fence (SPEC "Resource binding states": an
 * upstream answer to a request that named exactly one bot binds each id it carries to that bot),
 * as GraphQL answers do, on both hosts with the gate on: in strict mode the file id just uploaded
 * is usable under its bot at once (an unknown id is refused there), and another account's bot
 * naming it is 403 ResourceNotAllowed in strict and bound mode, with nothing reaching the upstream.
 * The answer is read as it is piped (src/graphql/learn_stream.ts).
 */
import assert from 'node:assert/strict';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { startPostgres } from '../fixtures/db/postgres.ts';
import { assertNothingReached, assertRefusal, postGraphql } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { FLOW_QUERY, statusOf, withGateOn } from './helpers.ts';

/** A bot upload of a small file as `jwt`; resolves with the file id the upstream answered. */
async function uploadFile(url: string, jwt: string, botID: string, text: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([text]), 'a.txt');
  const res = await fetch(`${url}/svc/api/filestorage/upload/bot?botID=${botID}&fileType=Image`, {
    method: 'POST',
    headers: { authorization: `Bearer ${jwt}` },
    body: form,
  });
  assert.equal(res.status, 200);
  const { id } = await res.json();
  assert.match(id, /^[0-9a-f]{24}$/);
  return id;
}

const flow = (botID: string, flowID: string) => ({
  query: FLOW_QUERY,
  variables: { botID, flowID },
});

for (const kind of HOSTS) {
  Deno.test(`[${kind}] an upload's answer binds its file id to the upload's bot`, async (t) => {
    const cluster = await startPostgres();
    try {
      for (const mode of ['strict', 'bound'] as const) {
        await t.step(
          `${mode}: the uploader's bot may use it, another account's may not`,
          async () => {
            const env = { SVC_RESOURCE_FENCE: mode };
            await withGateOn(kind, cluster, { env, store: false }, async (s) => {
              const { sandbox, gateway, users, bearer } = s;
              const a = bearer(users.a.jwt);
              const file = await uploadFile(gateway.url, users.a.jwt, WORLD_IDS.bot1, `f-${mode}`);
              const own = await postGraphql(gateway.url, flow(WORLD_IDS.bot1, file), a);
              assert.equal(
                await statusOf(own),
                200,
                'the uploader names its new file under its bot',
              );
              await assertNothingReached(sandbox, async () => {
                const message = await assertRefusal(
                  await postGraphql(gateway.url, flow(WORLD_IDS.bot3, file), bearer(users.b.jwt)),
                  403,
                  'ResourceNotAllowed',
                );
                assert.equal(message, 'The flowID in this request belongs to another workspace');
                if (mode === 'strict') {
                  // what the upload did not teach stays unknown, and strict refuses it
                  await assertRefusal(
                    await postGraphql(gateway.url, flow(WORLD_IDS.bot1, 'd'.repeat(24)), a),
                    403,
                    'ResourceNotAllowed',
                  );
                }
              });
            });
          },
        );
      }
    } finally {
      await cluster.stop();
    }
  });
}
