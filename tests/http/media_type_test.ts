/**
 * The media type of the GraphQL route's answers (src/http/media_type.ts, docs/routes.md
 * "Refusals and their media type"): the Accept reading and the top-level member scan on their own,
 * then on both hosts (and the Deno.serve handler) a request preferring
 * `application/graphql-response+json` gets its refusals in it (the same status and envelope),
 * every other request `application/json`, the origin check's refusal and both of the Node host's
 * paths (a small body, a large one) included, nothing reaching the upstream; an upstream answer is
 * relabelled only where its status fits that type's rules (2xx with `data`, 4xx with `errors` and
 * no `data`), and a batch's answer keeps the upstream's type.
 */
import assert from 'node:assert/strict';
import {
  GRAPHQL_RESPONSE_TYPE,
  hasTopLevelMember,
  prefersGraphqlResponse,
} from '../../src/http/media_type.ts';
import { assertNothingReached, assertRefusal, postGraphql } from '../helpers/assertions.ts';
import { DENO_SERVE, HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';

const JSON_TYPE = 'application/json; charset=utf-8';
const G = 'application/graphql-response+json';

Deno.test('Accept: which headers prefer application/graphql-response+json', () => {
  const yes = [
    G,
    `${G}, application/json`, // graphql-request 7, graphql-http's client
    `${G},application/json;q=0.9`, // Apollo Client 4
    `${G}, application/graphql+json, application/json, text/event-stream, multipart/mixed`, // urql
    `application/json;q=0.5, ${G}`,
    `${G};charset=utf-8, */*`,
    `APPLICATION/GRAPHQL-RESPONSE+JSON`,
    `text/html, ${G}; q=0.8, application/*;q=0.7`,
  ];
  const no = [
    null,
    '',
    '*/*',
    'application/json',
    `application/json, ${G}`, // same quality, json first
    `${G};q=0, application/json`,
    `${G};q=0`,
    `${G};q=0.5, application/json`,
    `${G};q=0.5, */*`,
    `${G};q=abc, application/json;q=0.1`,
    'application/graphql-response+jsonx',
  ];
  for (const accept of yes) assert.equal(prefersGraphqlResponse(accept), true, String(accept));
  for (const accept of no) assert.equal(prefersGraphqlResponse(accept), false, String(accept));
});

Deno.test('the top-level member scan reads keys at the top level only', () => {
  assert.equal(hasTopLevelMember('{"data":{"a":1}}', 'data'), true);
  assert.equal(hasTopLevelMember(' {\n "errors" : [{"data":1}], "data" :null}', 'data'), true);
  assert.equal(hasTopLevelMember('{"errors":[{"message":"data","data":2}]}', 'data'), false);
  assert.equal(hasTopLevelMember('{"x":"\\"data\\":","y":{"data":1}}', 'data'), false);
  assert.equal(hasTopLevelMember('{"x":"data"}', 'data'), false);
  assert.equal(hasTopLevelMember('{"dat":1,"datas":2}', 'data'), false);
  assert.equal(hasTopLevelMember('[{"data":1}]', 'data'), false);
  assert.equal(hasTopLevelMember('{"data', 'data'), false);
  assert.equal(hasTopLevelMember('not json', 'data'), false);
  assert.equal(hasTopLevelMember('{"errors":[]}', 'errors'), true);
});

/** The content-type of a refusal for `accept`, after checking it is the envelope with `code`. */
async function refusalType(res: Response, status: number, code: string): Promise<string | null> {
  const type = res.headers.get('content-type');
  await assertRefusal(res, status, code);
  return type;
}

for (const kind of [...HOSTS, DENO_SERVE]) {
  Deno.test(`[${kind}] refusals come in the media type the Accept prefers`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const u = gateway.url;
      const intro = { query: '{ __schema { types { name } } }' };
      await assertNothingReached(sandbox, async () => {
        for (
          const [accept, type] of [
            [`${G}, application/json`, GRAPHQL_RESPONSE_TYPE],
            [
              'application/json',
              JSON_TYPE,
            ],
            [null, JSON_TYPE],
            [`application/json, ${G}`, JSON_TYPE],
          ] as const
        ) {
          const headers: Record<string, string> = accept === null ? {} : { accept };
          const at = `Accept ${accept}`;
          // the Node host's common path (a small body) and the general one (a body over 64 KiB)
          const small = await postGraphql(u, intro, headers);
          assert.equal(await refusalType(small, 403, 'IntrospectionBlocked'), type, at);
          const large = { ...intro, variables: { pad: 'x'.repeat(70 * 1024) } };
          const big = await postGraphql(u, large, headers);
          assert.equal(await refusalType(big, 403, 'IntrospectionBlocked'), type, at);
          const media = await postGraphql(u, intro, { ...headers, 'content-type': 'text/plain' });
          assert.equal(await refusalType(media, 415, 'UnsupportedMediaType'), type, at);
          const origin = await postGraphql(u, intro, {
            ...headers,
            origin: 'https://evil.example',
          });
          assert.equal(await refusalType(origin, 403, 'ProxyOriginForbidden'), type, at);
        }
      });
    });
  });

  Deno.test(`[${kind}] an upstream answer is relabelled only where its status fits`, async () => {
    await withGateway(kind, {}, async ({ gateway }) => {
      const u = gateway.url;
      const query = { query: '{ currentUser { id } }' };
      const cases: [unknown, string | null, number, RegExp][] = [
        [query, G, 200, /^application\/graphql-response\+json/],
        [query, `${G}, application/json`, 200, /^application\/graphql-response\+json/],
        [query, 'application/json', 200, /^application\/json/],
        [query, null, 200, /^application\/json/],
        // the upstream's 400 (a validation failure): errors, no data
        [{ query: '{ noSuchField }' }, G, 400, /^application\/graphql-response\+json/],
        [{ query: '{ noSuchField }' }, 'application/json', 400, /^application\/json/],
        // a batch's answer is an array: the GraphQL over HTTP specification has no batches
        [[query, query], G, 200, /^application\/json/],
      ];
      for (const [body, accept, status, type] of cases) {
        const res = await postGraphql(u, body, accept === null ? {} : { accept });
        const text = await res.text();
        assert.equal(res.status, status, text);
        assert.match(res.headers.get('content-type') ?? '', type, `Accept ${accept}`);
      }
    });
  });
}
