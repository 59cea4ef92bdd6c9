/**
 * The health route's methods on both hosts (SPEC "Route table" health row,
 * "Errors": "every route answers [405] for methods it does not take"): GET and
 * HEAD answer, every other method is 405 with an allow header and an empty
 * body, the security headers and cache-control: no-store, and nothing reaches
 * the upstream.
 */
import assert from 'node:assert/strict';
import { assertNothingReached, assertSecurityHeaders } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';

const REFUSED_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

for (const kind of HOSTS) {
  Deno.test(`[${kind}] health: GET and HEAD answer, other methods 405 with allow and no body`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const url = `${gateway.url}/svc/healthz`;
      const head = await fetch(url, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get('cache-control'), 'no-store');
      assertSecurityHeaders(head);
      assert.equal(await head.text(), '');
      await assertNothingReached(sandbox, async () => {
        for (const method of REFUSED_METHODS) {
          const res = await fetch(url, {
            method,
            headers: { 'content-type': 'application/json' },
            body: method === 'OPTIONS' ? undefined : '{"query":"{ currentUser { id } }"}',
          });
          assert.equal(res.status, 405, method);
          assert.equal(res.headers.get('allow'), 'GET, HEAD', method);
          assert.equal(res.headers.get('cache-control'), 'no-store', method);
          assertSecurityHeaders(res);
          assert.equal(await res.text(), '', `${method}: empty body`);
        }
      });
      const get = await fetch(url);
      assert.equal(get.status, 200);
      assert.deepEqual(await get.json(), { ok: true });
    });
  });

  Deno.test(`[${kind}] health with a configuration problem: GET and HEAD 503, POST still 405`, async () => {
    await withGateway(kind, { env: { SVC_TOKEN: '' } }, async ({ gateway }) => {
      const url = `${gateway.url}/svc/healthz`;
      const get = await fetch(url);
      assert.equal(get.status, 503);
      assert.deepEqual(await get.json(), { ok: false });
      const head = await fetch(url, { method: 'HEAD' });
      assert.equal(head.status, 503);
      assert.equal(await head.text(), '');
      const post = await fetch(url, { method: 'POST', body: '{}' });
      assert.equal(post.status, 405);
      assert.equal(post.headers.get('allow'), 'GET, HEAD');
      assert.equal(await post.text(), '');
    });
  });
}
