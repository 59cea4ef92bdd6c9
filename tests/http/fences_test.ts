/**
 * Steps 18, 19 and 20 end to end on both hosts, gate off: the request-time bot
 * fence, the frozen and disabled fences, and the resource fence learning from
 * answers (SPEC "Bot fence", "Resource fence", "Resource binding states").
 */
import assert from 'node:assert/strict';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import {
  assertNothingReached,
  assertRefusal,
  forwarded,
  postGraphql,
} from '../helpers/assertions.ts';
import { HOSTS } from '../helpers/gateway.ts';
import { withGateway } from '../helpers/setup.ts';

const FOREIGN = 'ffffffffffffffffffffffff';
const BOT = 'query B($botID: BotID!) { bot(id: $botID) { id title } }';
const GROUPS = 'query G($botID: BotID!) { bot(id: $botID) { flowGroups { id } } }';
const FLOW =
  'query F($botID: BotID!, $flowID: FlowID!) { bot(id: $botID) { flow(flowID: $flowID) { id } } }';

for (const kind of HOSTS) {
  Deno.test(`[${kind}] request-time bot fence: own bots pass, others 403, asked once per minute`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      const own = await postGraphql(gateway.url, {
        query: BOT,
        variables: { botID: WORLD_IDS.bot3 },
      });
      assert.equal(own.status, 200);
      await own.body?.cancel();
      const literal = `{ bot(id: "${FOREIGN}") { id } }`;
      const before = forwarded(sandbox).length;
      for (const body of [{ query: BOT, variables: { botID: FOREIGN } }, { query: literal }]) {
        const message = await assertRefusal(
          await postGraphql(gateway.url, body),
          403,
          'BotNotAllowed',
        );
        assert.equal(message, `Bot ${FOREIGN} is not one this deployment may use`);
      }
      assert.equal(forwarded(sandbox).length, before);
      const asked = sandbox.received.filter((r) => r.search === '?op=SvcWorkspaceBots');
      assert.equal(asked.length, 1, 'the fence answer is cached');
      assert.equal(asked[0].headers.authorization?.startsWith('Bearer '), true);
    });
  });

  Deno.test(`[${kind}] step 18: an unanswerable fence is 503 ProxyFenceUnavailable; no bot named, no fence needed`, async () => {
    await withGateway(kind, {}, async ({ sandbox, gateway }) => {
      sandbox.switches.status = { status: 500, match: { operationName: 'SvcWorkspaceBots' } };
      const before = forwarded(sandbox).length;
      await assertRefusal(
        await postGraphql(gateway.url, { query: BOT, variables: { botID: WORLD_IDS.bot1 } }),
        503,
        'ProxyFenceUnavailable',
      );
      assert.equal(forwarded(sandbox).length, before);
      const plain = await postGraphql(gateway.url, { query: '{ currentUser { id } }' });
      assert.equal(plain.status, 200);
      await plain.body?.cancel();
    });
  });

  Deno.test(`[${kind}] allowedBotIds freezes the fence at startup; 'any' disables it`, async () => {
    await withGateway(
      kind,
      { options: { allowedBotIds: [WORLD_IDS.bot2] } },
      async ({ sandbox, gateway }) => {
        await assertNothingReached(sandbox, async () => {
          await assertRefusal(
            await postGraphql(gateway.url, { query: BOT, variables: { botID: WORLD_IDS.bot1 } }),
            403,
            'BotNotAllowed',
          );
        });
        const ok = await postGraphql(gateway.url, {
          query: BOT,
          variables: { botID: WORLD_IDS.bot2 },
        });
        assert.equal(ok.status, 200);
        await ok.body?.cancel();
        assert.equal(sandbox.received.filter((r) => r.search === '?op=SvcWorkspaceBots').length, 0);
      },
    );
    await withGateway(kind, { options: { allowedBotIds: 'any' } }, async ({ sandbox, gateway }) => {
      const res = await postGraphql(gateway.url, { query: BOT, variables: { botID: FOREIGN } });
      assert.equal(forwarded(sandbox).length, 1, 'no fence: forwarded');
      await res.body?.cancel();
    });
  });

  Deno.test(`[${kind}] resource fence bound: an answer binds ids; another bot naming them is refused`, async () => {
    await withGateway(
      kind,
      { env: { SVC_RESOURCE_FENCE: 'bound' } },
      async ({ sandbox, gateway }) => {
        const learn = await postGraphql(gateway.url, {
          query: GROUPS,
          variables: { botID: WORLD_IDS.bot1 },
        });
        const groups = (await learn.json()).data.bot.flowGroups.map((g: { id: string }) => g.id);
        assert.equal(groups[0], sandbox.world.resourceId(WORLD_IDS.bot1, 'flowGroups.0.id'));
        const before = forwarded(sandbox).length;
        const message = await assertRefusal(
          await postGraphql(gateway.url, {
            query: FLOW,
            variables: { botID: WORLD_IDS.bot2, flowID: groups[0] },
          }),
          403,
          'ResourceNotAllowed',
        );
        assert.equal(message, 'The flowID in this request belongs to another workspace');
        const literal = `{ bot(id: "${WORLD_IDS.bot3}") { flow(flowID: "${
          groups[1].toUpperCase()
        }") { id } } }`;
        await assertRefusal(
          await postGraphql(gateway.url, { query: literal }),
          403,
          'ResourceNotAllowed',
        );
        assert.equal(forwarded(sandbox).length, before);
        const own = await postGraphql(gateway.url, {
          query: FLOW,
          variables: { botID: WORLD_IDS.bot1, flowID: groups[0] },
        });
        assert.equal(own.status, 200);
        await own.body?.cancel();
        const unknown = await postGraphql(gateway.url, {
          query: FLOW,
          variables: { botID: WORLD_IDS.bot2, flowID: 'c'.repeat(24) },
        });
        assert.equal(unknown.status, 200, 'bound forwards unknown ids');
        await unknown.body?.cancel();
      },
    );
  });

  Deno.test(`[${kind}] resource fence strict refuses unknown ids; off refuses nothing`, async () => {
    await withGateway(
      kind,
      { env: { SVC_RESOURCE_FENCE: 'strict' } },
      async ({ sandbox, gateway }) => {
        await assertNothingReached(sandbox, async () => {
          const message = await assertRefusal(
            await postGraphql(gateway.url, {
              query: FLOW,
              variables: { botID: WORLD_IDS.bot2, flowID: 'c'.repeat(24) },
            }),
            403,
            'ResourceNotAllowed',
          );
          assert.equal(
            message,
            'This proxy cannot tell which bot that flowID belongs to, and does not forward what it cannot check',
          );
        });
      },
    );
    await withGateway(kind, {}, async ({ gateway }) => {
      const learn = await postGraphql(gateway.url, {
        query: GROUPS,
        variables: { botID: WORLD_IDS.bot1 },
      });
      const groups = (await learn.json()).data.bot.flowGroups.map((g: { id: string }) => g.id);
      const res = await postGraphql(gateway.url, {
        query: FLOW,
        variables: { botID: WORLD_IDS.bot2, flowID: groups[0] },
      });
      assert.equal(res.status, 200, 'the fence is off by default with the gate off');
      await res.body?.cancel();
    });
  });
}
