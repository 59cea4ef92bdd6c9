/**
 * SPEC "Database hint mapping" as a table (src/backend/hints.ts), and the refusals the real
 * database raises coming through supabase-js with their hints (svc_my_bot_ids without a user;
 * a refusal of the database layer itself).
 */
import assert from 'node:assert/strict';
import { createBackendRpc } from '../../src/backend/rpc.ts';
import { DATABASE_LAYER_MESSAGE, databaseRefusal, HINT_CODES } from '../../src/backend/hints.ts';
import { startBackend } from '../fixtures/db/backend.ts';
import { startPostgres } from '../fixtures/db/postgres.ts';

Deno.test('every hint of the spec maps to its code; 4xx keeps its status, 5xx is 503', () => {
  const table: Record<string, string> = {
    unauthenticated: 'AuthSessionRequired',
    not_admin: 'BotAdminRequired',
    tenant_not_found: 'BotWorkspaceMissing',
    tenant_ambiguous: 'BotWorkspaceAmbiguous',
    bot_not_found: 'BotNotFound',
    bad_name: 'BadBotName',
    name_too_long: 'BadBotName',
    member_not_found: 'MemberNotFound',
    bot_already_attached: 'BotAlreadyAttached',
    bot_still_upstream: 'BotStillUpstream',
    bad_bot_id: 'BadBotId',
    deployment_bot_cap: 'BotLimitReached',
    workspace_bot_cap: 'BotLimitReached',
    post_not_found: 'PostNotFound',
    not_claimed: 'PostNotClaimed',
    bad_secret: 'NotAllowed',
    bad_kind: 'BadPost',
    bad_media: 'BadPost',
    bad_patch: 'BadPost',
    bad_status: 'BadPost',
    bad_time: 'BadPost',
    bad_url: 'BadPost',
    insecure_url: 'BadPost',
    bad_permalink: 'BadPost',
    caption_too_long: 'CaptionTooLong',
    not_member: 'RecoveryTargetNotMember',
    rank: 'NotEnoughPermissions',
    cross_tenant: 'RecoveryTargetCrossTenant',
  };
  assert.deepEqual({ ...HINT_CODES }, table);
  const mapped = databaseRefusal({
    status: 409,
    data: null,
    error: { hint: 'bot_already_attached', message: 'Already attached' },
  });
  assert.deepEqual(mapped, {
    status: 409,
    code: 'BotAlreadyAttached',
    message: 'Already attached',
  });
  const layer = databaseRefusal({
    status: 403,
    data: null,
    error: { code: '42501', hint: null, message: 'permission denied for function x' },
  });
  assert.deepEqual(layer, {
    status: 403,
    code: 'BotRequestRefused',
    message: DATABASE_LAYER_MESSAGE,
  });
  for (const status of [0, 500, 503]) {
    const down = databaseRefusal({ status, data: null, error: null });
    assert.equal(down.status, 503);
    assert.equal(down.code, 'ProxyAuthUnavailable');
  }
  const proto = databaseRefusal({ status: 400, data: null, error: { hint: '__proto__' } });
  assert.equal(proto.code, 'BotRequestRefused');
});

Deno.test('database refusals arrive through the rpc client with status and hint', async () => {
  const cluster = await startPostgres();
  const backend = await startBackend(cluster);
  try {
    const service = createBackendRpc(backend.rest.url, backend.rest.serviceRoleKey, fetch);
    const noUser = await service.call('svc_my_bot_ids', {}, 2_000);
    assert.equal(noUser.status, 401);
    assert.deepEqual(databaseRefusal(noUser), {
      status: 401,
      code: 'AuthSessionRequired',
      message: 'Sign in to use this deployment',
    });
    const anon = createBackendRpc(backend.rest.url, backend.rest.anonKey, fetch);
    const denied = await anon.call('svc_resource_owner_lookup', { p_ids: [] }, 2_000);
    assert.equal(denied.status, 401);
    assert.equal(databaseRefusal(denied).message, DATABASE_LAYER_MESSAGE);
    await backend.rest.switches.setUnreachable(true);
    const gone = await service.call('svc_my_bot_ids', {}, 2_000);
    assert.equal(gone.status, 0);
    assert.equal(databaseRefusal(gone).code, 'ProxyAuthUnavailable');
  } finally {
    await backend.stop();
    await cluster.stop();
  }
});
