/**
 * Steps 10, 12, 13, 16 and 17 end to end on both hosts (SPEC "Order in which a
 * GraphQL body is checked", "Document checks in detail"), gate off: every
 * refusal with its status and code, and nothing reaching the upstream.
 */
import assert from 'node:assert/strict';
import { appOperations, WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import {
  assertNothingReached,
  assertRefusal,
  forwarded,
  postGraphql,
} from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';

const shipped = appOperations().filter((op) => op.kind === 'query').slice(0, 5);
const first = shipped[0];

for (const kind of HOSTS) {
  Deno.test(`[${kind}] step 10: the registry forwards its own text and name, refuses the rest`, async () => {
    const options = { operations: shipped.map((op) => op.query), allowedBotIds: 'any' as const };
    await withGateway(kind, { options }, async ({ sandbox, gateway }) => {
      assert.ok(gateway.lines.some((l) => l.includes(`registry ${shipped.length} documents`)));
      const reformatted = first.query.replace(/\n\s*/g, ' , ') + ' # a comment';
      const res = await postGraphql(gateway.url, {
        query: reformatted,
        variables: first.variables(WORLD_IDS.bot1),
      });
      const text = await res.text();
      assert.equal(res.status, 200, text);
      const seen = forwarded(sandbox).at(-1)!;
      assert.equal((seen.json as { query: string }).query, first.query, 'the record text travels');
      assert.equal(seen.search, `?op=${first.name}`);
      await assertNothingReached(sandbox, async () => {
        await assertRefusal(
          await postGraphql(gateway.url, { query: '{ currentUser { id } }' }),
          403,
          'OperationNotInRegistry',
        );
        await assertRefusal(
          await postGraphql(gateway.url, { query: '{ currentUser { id ' }),
          400,
          'ProxyMalformedQuery',
        );
        await assertRefusal(
          await postGraphql(gateway.url, [{
            query: first.query,
            variables: first.variables(WORLD_IDS.bot1),
          }, { query: '{ x }' }]),
          403,
          'OperationNotInRegistry',
        );
      });
    });
    await withGateway(kind, { options: { operations: [] } }, async ({ sandbox, gateway }) => {
      await assertNothingReached(sandbox, async () => {
        await assertRefusal(
          await postGraphql(gateway.url, { query: first.query }),
          403,
          'OperationNotInRegistry',
        );
      });
    });
  });

  Deno.test(`[${kind}] steps 12, 13, 16, 17: introspection, account operations, allowlist, bot strings`, async () => {
    const env = { SVC_OPERATION_ALLOWLIST: 'on', SVC_OPERATION_ALLOWLIST_EXTRA: 'extraField' };
    await withGateway(
      kind,
      { env, options: { allowedBotIds: 'any' } },
      async ({ sandbox, gateway }) => {
        assert.ok(
          gateway.lines.some((l) => /allowlist 365 fields/.test(l)),
          gateway.lines.join('\n'),
        );
        const u = gateway.url;
        await assertNothingReached(sandbox, async () => {
          await assertRefusal(
            await postGraphql(u, { query: '{ __schema { types { name } } }' }),
            403,
            'IntrospectionBlocked',
          );
          await assertRefusal(
            await postGraphql(u, { query: '{ a: __type(name: "Bot") { name } }' }),
            403,
            'IntrospectionBlocked',
          );
          // logout is on the account denylist and off the allowlist: the denylist's reason wins
          await assertRefusal(
            await postGraphql(u, { query: 'mutation { logout }' }),
            403,
            'AccountOperationBlocked',
          );
          await assertRefusal(
            await postGraphql(u, {
              query: 'query { ...F } fragment F on Query { createPublicAPIToken }',
            }),
            403,
            'AccountOperationBlocked',
          );
          await assertRefusal(
            await postGraphql(u, { query: '{ notAField }' }),
            403,
            'OperationNotAllowed',
          );
          await assertRefusal(
            await postGraphql(u, {
              query: 'query Q($botID: BotID!) { bot(id: $botID) { id } }',
              variables: { botID: 42 },
            }),
            400,
            'ProxyMalformedQuery',
          );
        });
        const extra = await postGraphql(u, { query: '{ extraField }' });
        assert.notEqual(
          extra.status,
          403,
          'SVC_OPERATION_ALLOWLIST_EXTRA names pass the allowlist',
        );
        await extra.body?.cancel();
      },
    );
  });

  Deno.test(`[${kind}] every real app document passes the generated allowlist end to end`, async () => {
    const env = { SVC_OPERATION_ALLOWLIST: 'on' };
    await withGateway(kind, { env, options: { allowedBotIds: 'any' } }, async ({ gateway }) => {
      const ops = appOperations().filter((op) => op.kind !== 'subscription');
      const refused: string[] = [];
      for (let i = 0; i < ops.length; i += 25) {
        const batch = ops.slice(i, i + 25).map((op) => ({
          query: op.query,
          variables: op.variables(WORLD_IDS.bot1),
        }));
        const res = await postGraphql(gateway.url, batch);
        const text = await res.text();
        if (res.status !== 200) refused.push(`${res.status} ${text.slice(0, 200)}`);
      }
      assert.deepEqual(refused, []);
    });
  });
}
