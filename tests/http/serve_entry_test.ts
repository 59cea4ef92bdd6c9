/**
 * The one entry every host serves HTTP by (`SvcProxy.serve`, src/proxy.ts; docs/development.md
 * "Layout"), in process against the sandbox upstream: a light request (not a Web Request, its body
 * read ahead and handed in beside it) on the GraphQL route gets the same answer `handle` gives the
 * same request as a Web Request, as an SvcAnswer with a text body; a path nothing claims is null;
 * the health path answers; a light request on a route that reads a Web Request's API is refused
 * 500 ProxyHandlerFailed with nothing forwarded.
 */
import assert from 'node:assert/strict';
import { createSvcProxy, type SvcRequest } from '../../mod.ts';
import { denoOutbound } from '../../hosts/deno/outbound.ts';
import { startSandbox } from '../../scripts/sandbox/mod.ts';
import { assertNothingReached, forwarded } from '../helpers/assertions.ts';
import { sandboxEnv } from '../helpers/setup.ts';

const ORIGIN = 'http://127.0.0.1:8000';

/** A request over a header record that is no Web Request (what the Node host's lean path builds). */
function light(method: string, path: string, headers: Record<string, string>): SvcRequest {
  return {
    method,
    url: ORIGIN + path,
    headers: { get: (name) => headers[name.toLowerCase()] ?? null },
    body: null,
  };
}

Deno.test('serve: a light request answers as handle does; unclaimed null; a light REST call 500', async () => {
  const sandbox = await startSandbox();
  const lines: string[] = [];
  const proxy = createSvcProxy(
    { loopbackOnly: true, ...denoOutbound(), log: (line) => lines.push(line) },
    sandboxEnv(sandbox),
  );
  try {
    const text = JSON.stringify({ query: '{ currentUser { id } }' });
    const headers = { 'content-type': 'application/json', host: '127.0.0.1:8000' };
    const bytes = new TextEncoder().encode(text);
    const before = forwarded(sandbox).length;
    const answer = await proxy.serve(light('POST', '/svc/graphql', headers), {
      readAhead: { bytes, counted: false },
    });
    assert.ok(answer !== null);
    assert.equal(forwarded(sandbox).length, before + 1, 'the light request was forwarded');
    assert.equal(typeof answer.body, 'string', 'the GraphQL route answers with text');
    const web = new Request(`${ORIGIN}/svc/graphql`, { method: 'POST', headers, body: text });
    const response = await proxy.handle(web);
    assert.ok(response !== null);
    assert.equal(answer.status, response.status);
    assert.equal(answer.body, await response.text());
    assert.equal(answer.headers['content-type'], response.headers.get('content-type'));

    assert.equal(await proxy.serve(light('GET', '/elsewhere', headers)), null);
    const health = await proxy.serve(light('GET', '/svc/healthz', headers));
    assert.equal(health?.status, 200);

    const upload = light('POST', '/svc/api/filestorage/upload/bot', headers);
    const refused = await assertNothingReached(sandbox, () => proxy.serve(upload));
    assert.equal(refused?.status, 500);
    assert.equal(
      JSON.parse(refused?.body as string).errors[0].extensions.code,
      'ProxyHandlerFailed',
    );
    assert.ok(lines.some((line) => line.includes('handler failed: TypeError')));
  } finally {
    await proxy.close();
    await sandbox.close();
  }
});

Deno.test('serve: a route answer built from text reaches the host as text; its access line names its code', async () => {
  const sandbox = await startSandbox();
  const lines: string[] = [];
  const proxy = createSvcProxy(
    { loopbackOnly: true, logFormat: 'json', ...denoOutbound(), log: (line) => lines.push(line) },
    sandboxEnv(sandbox),
  );
  try {
    const request = new Request(`${ORIGIN}/svc/api/not-an-upload`, {
      method: 'POST',
      headers: { host: '127.0.0.1:8000' },
    });
    const answer = await assertNothingReached(sandbox, () => proxy.serve(request));
    assert.ok(answer !== null);
    assert.equal(typeof answer.body, 'string', 'text, not a stream, for the host to write whole');
    const code = JSON.parse(answer.body as string).errors[0].extensions.code;
    assert.equal(code, 'RestPathNotAllowed');
    const access = lines.map((line) => JSON.parse(line)).filter((line) => line.route === 'api');
    assert.equal(access.length, 1, lines.join('\n'));
    assert.equal(access[0].code, 'RestPathNotAllowed');
    assert.equal(access[0].status, answer.status);
  } finally {
    await proxy.close();
    await sandbox.close();
  }
});
