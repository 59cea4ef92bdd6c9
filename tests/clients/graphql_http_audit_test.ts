/**
 * graphql-http's server audits (the GraphQL over HTTP specification's checks, graphql-http pinned
 * in deno.json) against the gateway on both hosts, with the sandbox upstream: none of the
 * media-type audits fails (docs/routes.md "Refusals and their media type"), nor the two asking that
 * a null `extensions` be taken (docs/readings.md "Readings of the spec's rules"), and every audit that
 * does not pass is one of the known ones below, each a rule of SPEC.md or the upstream's own
 * answer. An audit that starts failing, or a known one that starts passing, fails this test.
 */
import assert from 'node:assert/strict';
import { auditServer } from 'graphql-http';
import { HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';

/** Audits about the media type of answers: every one passes. */
const MEDIA_TYPE = [
  '22EB', // SHOULD accept application/graphql-response+json and match the content-type
  '4655', // MUST accept application/json and match the content-type
  '47DE', // SHOULD accept */* and use application/json for the content-type
  '80D8', // SHOULD assume application/json content-type when accept is missing
  '82A3', // MUST use utf-8 encoding when responding
  'B7N8', // SHOULD use 400 on JSON parsing failure when accepting graphql-response+json
  '556A', // SHOULD use 400 on document parsing failure when accepting graphql-response+json
  '74FF', // SHOULD use 400 on document validation failure when accepting graphql-response+json
  '86EE', // SHOULD use 400 on variable coercion failure when accepting graphql-response+json
  '0222', // MUST allow null {extensions} when accepting application/json
  '94B2', // SHOULD allow null {extensions} when accepting graphql-response+json
];

/** The audits that do not pass, and why (each is a rule, not a fault). */
const KNOWN: Record<string, string> = {
  BF61: 'its document selects __type: 403 IntrospectionBlocked (SPEC step 12)',
  '2EA1': 'its document selects __type: 403 IntrospectionBlocked (SPEC step 12)',
  '28B9': 'its document selects __type: 403 IntrospectionBlocked (SPEC step 12)',
  '428F': 'a non-empty extensions: 400 ProxyExtensionsUnsupported (SPEC step 9)',
  '1B7A': 'a non-empty extensions: 400 ProxyExtensionsUnsupported (SPEC step 9)',
  '572B': 'an unparsable document is 400 ProxyMalformedQuery in application/json too (step 11)',
  FDE2: 'an unparsable document is 400 ProxyMalformedQuery in application/json too (step 11)',
  '7B9B': "the upstream's own 400 for a document it cannot validate passes on (Forwarding rules)",
  '5A70': 'GET is 405 (SPEC "Route table": POST only)',
  D6D5: 'GET is 405 (SPEC "Route table": POST only)',
  '6A70': 'GET is 405 (SPEC "Route table": POST only)',
  // (notices) the forwarded operation name comes from the document, never from the request
  '6C00': 'an operationName that is no string is not read (SPEC "GraphQL request entry")',
  '6C01': 'an operationName that is no string is not read (SPEC "GraphQL request entry")',
  '6C02': 'an operationName that is no string is not read (SPEC "GraphQL request entry")',
  '6C03': 'an operationName that is no string is not read (SPEC "GraphQL request entry")',
};

for (const kind of HOSTS) {
  Deno.test(`[${kind}] graphql-http's server audits: every media-type audit passes`, async () => {
    // the audits run at once: room for all of them in flight
    const env = { GRAPHQL_MAX_CONCURRENT: '128' };
    await withGateway(kind, { env }, async ({ gateway }) => {
      const results = await auditServer({ url: `${gateway.url}/svc/graphql` });
      const failing: string[] = [];
      for (const r of results) {
        if (r.status === 'ok') continue;
        failing.push(r.id);
        await r.response.body?.cancel();
      }
      for (const id of MEDIA_TYPE) {
        assert.ok(results.some((r) => r.id === id), `audit ${id} exists`);
        assert.equal(failing.includes(id), false, `media-type audit ${id}`);
      }
      assert.deepEqual(failing.filter((id) => !(id in KNOWN)), [], 'new failing audits');
      assert.deepEqual(
        Object.keys(KNOWN).filter((id) => !failing.includes(id)),
        [],
        'known audits that now pass: drop them from KNOWN',
      );
    });
  });
}
