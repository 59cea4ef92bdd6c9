/**
 * POST /svc/graphql forwarding, on both hosts: what reaches the upstream is
 * exactly what SPEC "Forwarding rules" says, and the answer comes back with
 * the upstream status and the error-sentence rewriting of "Error envelope".
 */
import assert from 'node:assert/strict';
import {
  appOperations,
  SANDBOX_TOKEN,
  subgraphSentence,
  WORLD_IDS,
} from '../../scripts/sandbox/mod.ts';
import { assertSecurityHeaders, forwarded, postGraphql } from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';

const documents = appOperations();
const botQuery = documents.find((d) =>
  d.kind === 'query' && /\$botID: BotID!/.test(d.query) &&
  !/\$(?!botID)\w+: \w+!/.test(d.query)
)!;

for (const kind of HOSTS) {
  Deno.test(`[${kind}] a real app document is rebuilt, gets the token and ?op=, and comes back`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const res = await postGraphql(`${gateway.url}`, {
        query: botQuery.query,
        variables: { botID: WORLD_IDS.bot1 },
        stray: 'dropped',
      }, {
        cookie: 'session=abc',
        'x-forwarded-for': '10.0.0.1',
        authorization: 'Bearer browser-token',
        origin: gateway.url,
      }, '/svc/graphql?debug=1&op=Other');
      const body = await res.json();
      assert.equal(res.status, 200);
      assertSecurityHeaders(res);
      assert.ok(body.data, JSON.stringify(body));
      assert.equal(forwarded(sandbox).length, 1);
      const seen = forwarded(sandbox)[0];
      assert.equal(seen.path, '/graphql');
      assert.equal(seen.search, `?op=${botQuery.name}`);
      assert.equal(seen.headers.authorization, `Bearer ${SANDBOX_TOKEN}`);
      assert.equal(seen.headers['content-type'], 'application/json');
      for (const name of ['cookie', 'x-forwarded-for', 'origin', 'referer']) {
        assert.equal(seen.headers[name], undefined, `${name} forwarded`);
      }
      assert.deepEqual(seen.json, {
        query: botQuery.query,
        operationName: botQuery.name,
        variables: { botID: WORLD_IDS.bot1 },
      });
    });
  });

  Deno.test(`[${kind}] a batch is forwarded whole, each entry rebuilt`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const entry = { query: botQuery.query, variables: { botID: WORLD_IDS.bot2 } };
      const res = await postGraphql(gateway.url, [entry, entry]);
      const body = await res.json();
      assert.equal(res.status, 200);
      assert.equal(body.length, 2);
      assert.equal(forwarded(sandbox).length, 1);
      assert.equal(forwarded(sandbox)[0].operations.length, 2);
      assert.deepEqual(forwarded(sandbox)[0].json, [
        {
          query: botQuery.query,
          operationName: botQuery.name,
          variables: { botID: WORLD_IDS.bot2 },
        },
        {
          query: botQuery.query,
          operationName: botQuery.name,
          variables: { botID: WORLD_IDS.bot2 },
        },
      ]);
    });
  });

  Deno.test(`[${kind}] upstream status passes through; subgraph sentences are rewritten`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      sandbox.switches.errors = {
        errors: [
          { message: subgraphSentence('bots'), extensions: { service: 'bots' } },
          {
            message: subgraphSentence('flows'),
            extensions: {
              code: 'INTERNAL',
              errors: [{ message: 'x', extensions: { code: 'Unauthorized' } }],
            },
          },
          { message: 'Plain refusal', extensions: { code: 'NotEnoughPermissions' } },
        ],
      };
      const res = await postGraphql(gateway.url, { query: '{ currentUser { id } }' });
      const text = await res.text();
      assert.equal(res.status, 200);
      assert.ok(!text.includes('ubgraph'), text);
      const body = JSON.parse(text);
      assert.equal(body.errors[0].message, 'The upstream service rejected the request.');
      assert.equal(body.errors[0].extensions.code, 'UpstreamServiceError');
      assert.equal(body.errors[0].extensions.service, 'bots');
      assert.equal(body.errors[1].extensions.code, 'INTERNAL', 'an existing code is kept');
      assert.equal(body.errors[1].extensions.errors[0].extensions.code, 'Unauthorized');
      assert.equal(body.errors[2].message, 'Plain refusal');
      sandbox.switches.errors = null;
      sandbox.switches.status = {
        status: 502,
        body: 'bad gateway upstream',
        contentType: 'text/plain',
      };
      const passed = await postGraphql(gateway.url, { query: '{ currentUser { id } }' });
      assert.equal(passed.status, 502);
      assert.equal(await passed.text(), 'bad gateway upstream');
      assert.equal(passed.headers.get('content-type')?.startsWith('text/plain'), true);
    });
  });
}
