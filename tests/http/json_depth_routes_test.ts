/**
 * JSON nesting on the JSON routes, on both hosts (docs/configuration.md JSON_MAX_DEPTH): a body
 * nested one level past the limit is the route's own 400 InvalidRequest, before anything reaches
 * the backend or the upstream; a body at the limit goes on to the route's next step. One route of
 * each group: POST /svc/auth/bots, POST /svc/publishing/publish-due, POST /svc/admin/bots.
 *
 * The backend is a stand-in that records every request and answers 500: the routes read their
 * bodies before any backend call (the bearer's expiry and issuer are read locally, SPEC
 * "Authentication" 2; the publish key is compared locally, 5), so a refused body must leave it
 * untouched.
 */
import assert from 'node:assert/strict';
import { SANDBOX_TOKEN, startSandbox, WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import { DEFAULTS } from '../../src/config/defaults.ts';
import { FAST, PASSWORD, unlock } from '../admin/helpers.ts';
import { assertNothingReached, assertRefusal, forwarded } from '../helpers/assertions.ts';
import { nest } from '../helpers/deep_json.ts';
import { HOSTS, startGateway } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';

const LIMIT = DEFAULTS.jsonMaxDepth;
const HARD_MAX = DEFAULTS.jsonDepthHardMax;
const SECRET = 'publishing-secret-0123456789';

/** `{"<key>":<arrays>}` of depth `depth` (the object is 1). */
const deepObject = (depth: number, key = 'x', extra = '') =>
  `{${extra}"${key}":${nest(depth - 1)}}`;

/** A backend that records every request and answers 500. */
function startRecordingBackend() {
  const calls: string[] = [];
  const server = Deno.serve({ hostname: '127.0.0.1', port: 0, onListen() {} }, (req) => {
    calls.push(new URL(req.url).pathname);
    return Response.json({ message: 'stand-in' }, { status: 500 });
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, calls, stop: () => server.shutdown() };
}

/** An unsigned session token the gateway reads unverified: issuer, expiry, subject. */
function sessionToken(issuer: string): string {
  const part = (value: unknown) =>
    btoa(JSON.stringify(value)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  const claims = { iss: issuer, exp: Math.floor(Date.now() / 1000) + 3600, sub: WORLD_IDS.user };
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}.c2lnbmF0dXJl`;
}

const post = (url: string, body: string, headers: Record<string, string>) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

for (const kind of HOSTS) {
  Deno.test(`[${kind}] auth and publishing routes: one level past the limit is 400 InvalidRequest, nothing asked`, async () => {
    const sandbox = await startSandbox();
    const backend = startRecordingBackend();
    const gateway = await startGateway(kind, {}, {
      SVC_TOKEN: SANDBOX_TOKEN,
      SVC_API_BASE: sandbox.url,
      CLIENT_BACKEND_URL: backend.url,
      CLIENT_BACKEND_ANON_KEY: 'anon-key',
      BACKEND_SERVICE_ROLE_KEY: 'service-role-key',
      SVC_WORKSPACE_ID: WORLD_IDS.workspaceA,
      SVC_SHARED_LIMITS: 'off',
      PUBLISHING_SECRET: SECRET,
    });
    try {
      const bearer = { authorization: `Bearer ${sessionToken(`${backend.url}/auth/v1`)}` };
      const bots = `${gateway.url}/svc/auth/bots`;
      const due = `${gateway.url}/svc/publishing/publish-due`;
      const key = { 'x-svc-publish-key': SECRET };

      // past the limit: refused before any backend or upstream call
      await assertNothingReached(sandbox, async () => {
        const before = backend.calls.length;
        for (const depth of [LIMIT + 1, 100_000]) {
          const name = '"name":"Deep",';
          const message = await assertRefusal(
            await post(bots, deepObject(depth, 'x', name), bearer),
            400,
            'InvalidRequest',
          );
          assert.equal(message, `The body nests deeper than ${LIMIT} levels`);
          assert.equal(
            await assertRefusal(
              await post(due, deepObject(depth, 'id'), key),
              400,
              'InvalidRequest',
            ),
            `The body nests deeper than ${LIMIT} levels`,
          );
        }
        assert.deepEqual(backend.calls.slice(before), [], 'nothing reached the backend');
      });

      // at the limit: past the depth check, on to the route's next step
      const atLimit = await post(bots, deepObject(LIMIT, 'x', '"name":"Deep",'), bearer);
      assert.notEqual(atLimit.status, 400, await atLimit.text());
      assert.ok(backend.calls.some((p) => p.endsWith('/svc_bot_reserve')), backend.calls.join());
      assert.equal(
        await assertRefusal(await post(due, deepObject(LIMIT, 'id'), key), 400, 'InvalidRequest'),
        'The body is not {id}',
        'read as JSON: the id is not a string',
      );
      assert.ok(!gateway.lines.some((l) => /handler failed|RangeError/.test(l)));
    } finally {
      await gateway.stop();
      await backend.stop();
      await sandbox.close();
    }
  });

  Deno.test(`[${kind}] admin panel: one level past the limit is 400 InvalidRequest, nothing upstream`, async () => {
    await withGateway(
      kind,
      { env: { ADMIN_PASSWORD: PASSWORD }, options: FAST },
      async ({ sandbox, gateway }) => {
        const cookie = await unlock(gateway.url);
        const headers = { cookie, 'x-svc-admin': '1' };
        const bots = `${gateway.url}/svc/admin/bots`;
        const fields = `"workspaceId":"${WORLD_IDS.workspaceA}","name":"Deep",`;
        await assertNothingReached(sandbox, async () => {
          // (the panel's bodies stop at 64 KiB: 30,000 levels fit)
          for (const depth of [LIMIT + 1, 30_000]) {
            const message = await assertRefusal(
              await post(bots, deepObject(depth, 'x', fields), headers),
              400,
              'InvalidRequest',
            );
            assert.equal(message, `The body nests deeper than ${LIMIT} levels`);
          }
        });
        const before = forwarded(sandbox).length;
        const atLimit = await post(bots, deepObject(LIMIT, 'x', fields), headers);
        assert.equal(atLimit.status, 201, await atLimit.text());
        assert.equal(forwarded(sandbox).length, before + 1, 'the bot was created upstream');
      },
    );
  });

  Deno.test(`[${kind}] admin panel: an upstream answer nested past ${HARD_MAX} levels is 502, never 500`, async () => {
    await withGateway(
      kind,
      { env: { ADMIN_PASSWORD: PASSWORD }, options: FAST },
      async ({ sandbox, gateway }) => {
        const cookie = await unlock(gateway.url);
        const detail = () =>
          fetch(`${gateway.url}/svc/admin/bots/${WORLD_IDS.bot1}`, {
            headers: { cookie, 'x-svc-admin': '1' },
          });
        // the answer 1, data 2, bot 3, members 4, the arrays in it from 5 on; members are passed
        // on re-serialised
        const answer = (depth: number) => {
          sandbox.switches.status = {
            status: 200,
            contentType: 'application/json',
            body: `{"data":{"bot":{"id":"${WORLD_IDS.bot1}","title":"t","members":[${
              nest(depth - 4)
            }]},"currentUser":null}}`,
          };
        };
        answer(HARD_MAX);
        const atMax = await detail();
        const read = JSON.parse(await atMax.text());
        assert.equal(atMax.status, 200);
        assert.deepEqual(read.bot.members, [JSON.parse(nest(HARD_MAX - 4))]);
        for (const depth of [HARD_MAX + 1, 100_000]) {
          answer(depth);
          await assertRefusal(await detail(), 502, 'AdminUpstreamFailed');
        }
        assert.ok(!gateway.lines.some((l) => /handler failed|RangeError/.test(l)));
      },
    );
  });
}
