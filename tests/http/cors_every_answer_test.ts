/**
 * SPEC "Checks before any route" 3: a listed cross-origin caller receives
 * access-control-allow-origin, access-control-allow-credentials and vary: origin on every answer,
 * on both hosts and on the Deno.serve handler: the 405 of the GraphQL route (urql's default GET), of the REST route and of the
 * auth routes (empty body, allow header), and a refusal, each once; an origin that is not listed
 * gets 403 and no CORS headers; nothing reaches the upstream. (The 500 ProxyHandlerFailed case
 * is in handler_failed_test.ts.)
 */
import assert from 'node:assert/strict';
import { assertNothingReached, assertRefusal, postGraphql } from '../helpers/assertions.ts';
import { DENO_SERVE, HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';

const LISTED = 'https://app.example';

/** The three CORS headers for `origin`, each once. */
export function assertCors(res: Response, origin = LISTED): void {
  assert.equal(res.headers.get('access-control-allow-origin'), origin);
  assert.equal(res.headers.get('access-control-allow-credentials'), 'true');
  assert.equal(res.headers.get('vary'), 'origin');
}

for (const kind of [...HOSTS, DENO_SERVE]) {
  Deno.test(`[${kind}] a listed origin gets the CORS headers on a 405 and on a refusal`, async () => {
    const env = { ALLOWED_ORIGINS: LISTED };
    await withGateway(kind, { env }, async ({ sandbox, gateway }) => {
      const u = gateway.url;
      await assertNothingReached(sandbox, async () => {
        // urql 6's default: a query as GET with its parameters in the URL
        const get = await fetch(`${u}/svc/graphql?query=%7B__typename%7D`, {
          headers: { origin: LISTED, accept: 'application/graphql-response+json' },
        });
        assert.equal(get.status, 405);
        assert.equal(get.headers.get('allow'), 'POST');
        assert.equal(await get.text(), '');
        assertCors(get);
        for (const method of ['PUT', 'DELETE', 'PATCH']) {
          const res = await fetch(`${u}/svc/graphql`, { method, headers: { origin: LISTED } });
          assert.equal(res.status, 405, method);
          await res.body?.cancel();
          assertCors(res);
        }
        const upload = await fetch(`${u}/svc/api/filestorage/upload/bot?botID=x`, {
          headers: { origin: LISTED },
        });
        assert.equal(upload.status, 405);
        assert.equal(await upload.text(), '');
        assertCors(upload);
        const refused = await postGraphql(u, '{x', { origin: LISTED });
        assertCors(refused);
        await assertRefusal(refused, 400, 'ProxyMalformedQuery');
        const unlisted = await fetch(`${u}/svc/graphql`, {
          headers: { origin: 'https://evil.example' },
        });
        assert.equal(unlisted.status, 403);
        assert.equal(unlisted.headers.get('access-control-allow-origin'), null);
        await unlisted.body?.cancel();
        // same-origin callers get none
        const own = await fetch(`${u}/svc/graphql`);
        assert.equal(own.status, 405);
        assert.equal(own.headers.get('access-control-allow-origin'), null);
        await own.body?.cancel();
      });
    });
  });
}
