/**
 * The document steps 12-17 as predicates (SPEC "Order in which a GraphQL body is checked"),
 * and the allowlist resolution.
 */

import assert from 'node:assert/strict';
import {
  accountOperation,
  accountScope,
  accountStructure,
  allowlist,
  botsAreStrings,
  GENERATED_ALLOWLIST,
  introspection,
  resolveAllowlist,
} from '../../src/graphql/mod.ts';
import { ERROR_STATUS } from '../../src/http/error_codes.ts';
import { analysed } from './helpers.ts';

Deno.test('check 12: introspection is 403 IntrospectionBlocked naming the field', () => {
  const r = introspection(analysed('{ __schema { types { name } } }'));
  assert.equal(r?.code, 'IntrospectionBlocked');
  assert.equal(ERROR_STATUS[r!.code], 403);
  assert.match(r!.message, /__schema/);
  assert.equal(introspection(analysed('{ __typename }')), null);
});

Deno.test('check 13: every account operation is 403 AccountOperationBlocked', () => {
  for (const field of ['createPublicAPIToken', 'logout', 'botResetAPIToken', 'acceptBotInvite']) {
    const r = accountOperation(
      analysed(`mutation { ok: createFlow(botID: "B") { id } x: ${field} }`),
    );
    assert.equal(r?.code, 'AccountOperationBlocked');
    assert.match(r!.message, new RegExp(field));
  }
  assert.equal(accountOperation(analysed('{ logoutStatus }')), null);
  assert.equal(accountOperation(analysed('{ a { logout } }')), null, 'only root fields');
});

Deno.test('check 13: an account operation hidden in a fragment is found', () => {
  const r = accountOperation(analysed('mutation { ...F } fragment F on Mutation { logout }'));
  assert.equal(r?.code, 'AccountOperationBlocked');
});

Deno.test('check 14: account scope is 403 AccountScopeBlocked naming the selection', () => {
  const r = accountScope(analysed('{ currentUser { id email } }'));
  assert.equal(r?.code, 'AccountScopeBlocked');
  assert.match(r!.message, /currentUser\.email/);
  assert.equal(accountScope(analysed('{ currentUser { id botRole(botID: "B") { x } } }')), null);
});

Deno.test('check 15: account structure is 403 AccountStructureBlocked', () => {
  const r = accountStructure(
    analysed('mutation { workspaceCreateBot(workspaceID: "W", initialTitle: "t") { id } }'),
  );
  assert.equal(r?.code, 'AccountStructureBlocked');
  assert.match(r!.message, /workspaceCreateBot/);
  assert.equal(accountStructure(analysed('mutation { createFlow(botID: "B") { id } }')), null);
});

Deno.test('check 16: a root field off the allowlist is 403 OperationNotAllowed; null is off', () => {
  const set = resolveAllowlist({ enabled: true });
  const r = allowlist(set)(analysed('{ bot(id: "B") { id } secretThing }'));
  assert.equal(r?.code, 'OperationNotAllowed');
  assert.match(r!.message, /secretThing/);
  assert.equal(allowlist(null)(analysed('{ secretThing }')), null);
  assert.equal(
    allowlist(set)(
      analysed('{ b: bot(id: "B") { id } ...F } fragment F on Query { currentUser { id } }'),
    ),
    null,
  );
});

Deno.test('allowlist: off is null; extra names are added, trimmed, blanks ignored', () => {
  assert.equal(resolveAllowlist({ enabled: false, extra: ['x'] }), null);
  const set = resolveAllowlist({ enabled: true, extra: [' myField ', '', '  '] })!;
  assert.equal(set.size, GENERATED_ALLOWLIST.length + 1);
  assert.ok(set.has('myField'));
  assert.ok(!set.has(''));
});

Deno.test('check 17: a non-string or unresolvable bot is 400 ProxyMalformedQuery', () => {
  const r = botsAreStrings(analysed('{ bot(id: 5) { id } }'));
  assert.equal(r?.code, 'ProxyMalformedQuery');
  assert.match(r!.message, /bot\(id:\)/);
  const u = botsAreStrings(analysed('query($b: BotID!) { bot(id: $b) { id } }'));
  assert.equal(u?.code, 'ProxyMalformedQuery');
  assert.match(u!.message, /\$b/);
  assert.equal(botsAreStrings(analysed('{ bot(id: "B") { id } }')), null);
});
