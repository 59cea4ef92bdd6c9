/**
 * The resource fence's learning rules (SPEC "Resource binding states"), end to end on the Deno
 * host with the gate off and SVC_RESOURCE_FENCE=bound, the sandbox answering each learning
 * request with a fixed JSON text: the bot's own id and the ids the request carried are never
 * bound; a request naming two bots teaches nothing; an id seen under a second bot is shared and
 * refuses nobody. Then the table itself with the spec's numbers: a binding is held 24 hours (a
 * clock given to the fence), and a process holds at most 50,000 bindings.
 */
import assert from 'node:assert/strict';
import { WORLD_IDS } from '../../scripts/sandbox/mod.ts';
import type { Sandbox } from '../../scripts/sandbox/mod.ts';
import { createResourceFence } from '../../src/admission/resource_fence.ts';
import { DEFAULTS } from '../../src/config/defaults.ts';
import {
  assertNothingReached,
  assertRefusal,
  forwarded,
  postGraphql,
} from '../helpers/assertions.ts';
import { withGateway } from '../helpers/setup.ts';

const { bot1, bot2, bot3 } = WORLD_IDS;
const LEARNED = 'a0000000000000000000000a';
const CARRIED = 'c0000000000000000000000c';
const TWO_BOTS = 'd0000000000000000000000d';
const SHARED = 'e0000000000000000000000e';

/** A request naming one bot and carrying `flowID`. */
const ONE = 'query Learn($botID: BotID!, $flowID: FlowID!) ' +
  '{ bot(id: $botID) { flow(flowID: $flowID) { id } } }';
/** A request naming two bots. */
const TWO = 'query LearnTwo($botID: BotID!, $other: BotID!) ' +
  '{ a: bot(id: $botID) { id } b: bot(id: $other) { id } }';
/** A request naming one bot and no resource. */
const PLAIN = 'query LearnPlain($botID: BotID!) { bot(id: $botID) { id } }';
/** The probe: `bot` naming `flowID` (answered by the sandbox itself). */
const PROBE = 'query Probe($botID: BotID!, $flowID: FlowID!) ' +
  '{ bot(id: $botID) { flow(flowID: $flowID) { id } } }';

/** The sandbox answers the next `operationName` with `ids` in a 200 JSON text. */
function answerWith(sandbox: Sandbox, operationName: string, ids: string[]): void {
  sandbox.switches.status = {
    status: 200,
    contentType: 'application/json',
    body: JSON.stringify({ data: { bot: { id: ids[0], items: ids.map((id) => ({ id })) } } }),
    match: { operationName },
  };
}

async function ok(res: Response): Promise<void> {
  assert.equal(res.status, 200, await res.text());
}

/** `bot` naming `flowID`: forwarded (true) or refused 403 ResourceNotAllowed with nothing sent. */
async function probe(sandbox: Sandbox, url: string, bot: string, flowID: string) {
  const before = forwarded(sandbox).length;
  const res = await postGraphql(url, { query: PROBE, variables: { botID: bot, flowID } });
  if (res.status === 403) {
    await assertRefusal(res, 403, 'ResourceNotAllowed');
    assert.equal(forwarded(sandbox).length, before, 'a refused probe reached the upstream');
    return false;
  }
  await ok(res);
  assert.equal(forwarded(sandbox).length, before + 1);
  return true;
}

Deno.test('the resource fence learns only what an answer to one bot teaches', async (t) => {
  await withGateway(
    'deno',
    { env: { SVC_RESOURCE_FENCE: 'bound' } },
    async ({ sandbox, gateway }) => {
      await t.step("the bot's own id and the ids the request carried are skipped", async () => {
        answerWith(sandbox, 'Learn', [bot1, LEARNED, CARRIED]);
        await ok(
          await postGraphql(gateway.url, {
            query: ONE,
            variables: { botID: bot1, flowID: CARRIED },
          }),
        );
        sandbox.switches.status = null;
        assert.equal(
          await probe(sandbox, gateway.url, bot2, LEARNED),
          false,
          'learned id bound to bot1',
        );
        assert.equal(
          await probe(sandbox, gateway.url, bot2, CARRIED),
          true,
          'a carried id stays unknown',
        );
        assert.equal(
          await probe(sandbox, gateway.url, bot2, bot1),
          true,
          "the bot's own id is not bound",
        );
        assert.equal(
          await probe(sandbox, gateway.url, bot1, LEARNED),
          true,
          'its own bot may name it',
        );
      });

      await t.step('a request naming two bots teaches nothing', async () => {
        answerWith(sandbox, 'LearnTwo', [bot1, TWO_BOTS]);
        await ok(
          await postGraphql(gateway.url, { query: TWO, variables: { botID: bot1, other: bot2 } }),
        );
        sandbox.switches.status = null;
        assert.equal(await probe(sandbox, gateway.url, bot3, TWO_BOTS), true);
        // nor does a batch whose entries name one bot each
        answerWith(sandbox, 'LearnPlain', [bot1, TWO_BOTS]);
        await ok(
          await postGraphql(gateway.url, [
            { query: PLAIN, variables: { botID: bot1 } },
            { query: PLAIN, variables: { botID: bot2 } },
          ]),
        );
        sandbox.switches.status = null;
        assert.equal(await probe(sandbox, gateway.url, bot3, TWO_BOTS), true);
        // the same answer under one bot does bind it
        answerWith(sandbox, 'LearnPlain', [bot1, TWO_BOTS]);
        await ok(await postGraphql(gateway.url, { query: PLAIN, variables: { botID: bot1 } }));
        sandbox.switches.status = null;
        assert.equal(await probe(sandbox, gateway.url, bot3, TWO_BOTS), false);
      });

      await t.step('an id seen under a second bot is shared and refuses nobody', async () => {
        answerWith(sandbox, 'LearnPlain', [bot1, SHARED]);
        await ok(await postGraphql(gateway.url, { query: PLAIN, variables: { botID: bot1 } }));
        sandbox.switches.status = null;
        await assertNothingReached(sandbox, async () => {
          assert.equal(
            await probe(sandbox, gateway.url, bot3, SHARED),
            false,
            'bound to bot1 first',
          );
        });
        answerWith(sandbox, 'LearnPlain', [bot2, SHARED]);
        await ok(await postGraphql(gateway.url, { query: PLAIN, variables: { botID: bot2 } }));
        sandbox.switches.status = null;
        for (const bot of [bot3, bot1, bot2]) {
          assert.equal(
            await probe(sandbox, gateway.url, bot, SHARED),
            true,
            `shared, ${bot} passes`,
          );
        }
        // a third bot's answer carrying it does not take it back from "shared"
        answerWith(sandbox, 'LearnPlain', [bot3, SHARED]);
        await ok(await postGraphql(gateway.url, { query: PLAIN, variables: { botID: bot3 } }));
        sandbox.switches.status = null;
        assert.equal(await probe(sandbox, gateway.url, bot1, SHARED), true);
      });
    },
  );
});

Deno.test('a binding is held 24 hours, then the id is unknown again', () => {
  let clock = 1_000;
  const fence = createResourceFence('bound', undefined, undefined, () => clock);
  const ref = [{ id: LEARNED, argument: 'flowID' }];
  assert.deepEqual(fence.learn(bot1, [LEARNED], new Set()), [LEARNED]);
  assert.equal(fence.check(ref, new Set([bot2]))?.code, 'ResourceNotAllowed');
  clock += 24 * 60 * 60 * 1000;
  assert.equal(fence.check(ref, new Set([bot2]))?.code, 'ResourceNotAllowed', 'held 24 hours');
  clock += 1;
  assert.equal(fence.get(LEARNED), undefined, 'unknown after 24 hours');
  assert.equal(fence.check(ref, new Set([bot2])), null);
  // learning it again holds it for another 24 hours from then
  fence.learn(bot1, [LEARNED], new Set());
  clock += 23 * 60 * 60 * 1000;
  assert.equal(fence.check(ref, new Set([bot2]))?.code, 'ResourceNotAllowed');
});

Deno.test('a process holds at most 50,000 bindings, the oldest dropped first', () => {
  assert.equal(DEFAULTS.resourceBindings, 50_000);
  const fence = createResourceFence('bound');
  const hex = (n: number) => n.toString(16).padStart(24, '0');
  const ids = Array.from({ length: 50_001 }, (_, i) => hex(i + 1));
  let learned = 0;
  for (let i = 0; i < ids.length; i += 5_000) {
    learned += fence.learn(bot1, ids.slice(i, i + 5_000), new Set()).length;
  }
  assert.equal(learned, 50_001, 'every id was read (5,000 per answer)');
  assert.equal(fence.size, 50_000);
  assert.equal(fence.get(ids[0]), undefined, 'the oldest binding was dropped');
  assert.deepEqual(fence.get(ids[1]), { bot: bot1, shared: false });
  assert.deepEqual(fence.get(ids[50_000]), { bot: bot1, shared: false });
});
