/**
 * SvcProvisionBot, SvcRenameBot, SvcDeleteBot against the sandbox upstream (facts.json
 * upstreamOperationsUsedByService): the documents sent, and every outcome they map to.
 */
import assert from 'node:assert/strict';
import {
  SANDBOX_TOKEN,
  startSandbox,
  upstreamError,
  WORLD_IDS,
} from '../../scripts/sandbox/mod.ts';
import {
  deleteBot,
  provisionBot,
  renameBot,
  type ServiceCall,
  SVC_PROVISION_BOT,
} from '../../src/upstream/service_operations.ts';

Deno.test('service operations: provision, rename, delete against the sandbox', async (t) => {
  const sb = await startSandbox();
  const call: ServiceCall = {
    fetch: globalThis.fetch,
    upstream: sb.url,
    token: SANDBOX_TOKEN,
    timeoutMs: 2000,
  };
  try {
    await t.step('provision creates a bot; the document and token are the facts', async () => {
      sb.reset();
      const out = await provisionBot(call, WORLD_IDS.workspaceA, 'Fresh');
      assert.equal(out.kind, 'created');
      const botId = (out as { botId: string }).botId;
      assert.equal(sb.world.bot(botId)?.title, 'Fresh');
      const sent = sb.received[0];
      assert.equal(sent.search, '?op=SvcProvisionBot');
      assert.equal(sent.headers.authorization, `Bearer ${SANDBOX_TOKEN}`);
      assert.deepEqual(sent.json, {
        query: SVC_PROVISION_BOT.document,
        variables: { workspaceID: WORLD_IDS.workspaceA, title: 'Fresh' },
      });
    });
    await t.step('TooManyBotsInWorkspace is workspace_full', async () => {
      sb.reset();
      sb.world.workspace(WORLD_IDS.workspaceB)!.botsLimit = 1;
      assert.deepEqual(await provisionBot(call, WORLD_IDS.workspaceB, 'x'), {
        kind: 'workspace_full',
      });
    });
    await t.step('WorkspaceDoesNotExist / NotEnoughPermissions are workspace_refused', async () => {
      sb.reset();
      assert.deepEqual(await provisionBot(call, 'e000000000000000000000ff', 'x'), {
        kind: 'workspace_refused',
        code: 'WorkspaceDoesNotExist',
      });
      sb.switches.errors = { errors: upstreamError('NotEnoughPermissions') };
      assert.deepEqual(await provisionBot(call, WORLD_IDS.workspaceA, 'x'), {
        kind: 'workspace_refused',
        code: 'NotEnoughPermissions',
      });
    });
    await t.step('other answers are refused with their status', async () => {
      sb.reset();
      sb.switches.errors = { errors: upstreamError('SomethingElse') };
      assert.deepEqual(await provisionBot(call, WORLD_IDS.workspaceA, 'x'), {
        kind: 'refused',
        status: 200,
        codes: ['SomethingElse'],
      });
      sb.switches.errors = null;
      sb.switches.status = { status: 503 };
      assert.deepEqual(await provisionBot(call, WORLD_IDS.workspaceA, 'x'), {
        kind: 'refused',
        status: 503,
        codes: [],
      });
      sb.switches.status = { status: 200, body: 'not json', contentType: 'text/plain' };
      assert.equal((await provisionBot(call, WORLD_IDS.workspaceA, 'x')).kind, 'refused');
    });
    await t.step('no answer is unreachable (dropped, or past the deadline)', async () => {
      sb.reset();
      sb.switches.drop = {};
      assert.deepEqual(await provisionBot(call, WORLD_IDS.workspaceA, 'x'), {
        kind: 'unreachable',
      });
      sb.reset();
      sb.switches.delays = [{ ms: 300 }];
      assert.deepEqual(await renameBot({ ...call, timeoutMs: 50 }, WORLD_IDS.bot1, 'x'), {
        kind: 'unreachable',
      });
    });
    await t.step('rename renames; an unknown bot is refused', async () => {
      sb.reset();
      assert.deepEqual(await renameBot(call, WORLD_IDS.bot1, 'Renamed'), {
        kind: 'done',
        alreadyGone: false,
      });
      assert.equal(sb.world.bot(WORLD_IDS.bot1)?.title, 'Renamed');
      assert.equal(sb.received.at(-1)?.search, '?op=SvcRenameBot');
      const out = await renameBot(call, 'b000000000000000000000ff', 'x');
      assert.equal(out.kind, 'refused');
      assert.deepEqual((out as { codes: string[] }).codes, ['BotDoesNotExist']);
    });
    await t.step('delete deletes; the three codes mean already gone; others refuse', async () => {
      sb.reset();
      assert.deepEqual(await deleteBot(call, WORLD_IDS.bot2), {
        kind: 'done',
        alreadyGone: false,
      });
      assert.equal(sb.world.bot(WORLD_IDS.bot2), undefined);
      assert.deepEqual(await deleteBot(call, WORLD_IDS.bot2), { kind: 'done', alreadyGone: true });
      for (const code of ['NotFound', 'NotEnoughPermissions']) {
        sb.switches.errors = { errors: upstreamError(code) };
        assert.deepEqual(await deleteBot(call, WORLD_IDS.bot1), {
          kind: 'done',
          alreadyGone: true,
        });
      }
      sb.switches.errors = { errors: upstreamError('InternalError') };
      assert.equal((await deleteBot(call, WORLD_IDS.bot1)).kind, 'refused');
      assert.ok(sb.world.bot(WORLD_IDS.bot1), 'bot 1 still there');
    });
  } finally {
    await sb.close();
  }
});
