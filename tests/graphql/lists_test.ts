/**
 * The code's copy of the facts lists equals data/upstream/facts.json.
 */

import assert from 'node:assert/strict';
import {
  ACCOUNT_OPERATIONS,
  ACCOUNT_SCOPE,
  ACCOUNT_STRUCTURE_OPERATIONS,
  ANALYSIS_LIMITS,
  BOT_ID_ARGUMENTS,
  isResourceArgumentName,
  RESOURCE_ID_ARGUMENTS,
  SLOW_FIELDS,
  UPSTREAM_MESSAGE_SCRUB,
} from '../../src/graphql/lists.ts';
import { MAX_IDS_LEARNED_PER_ANSWER } from '../../src/graphql/learn.ts';
import { FACTS_FILE } from './fixtures.ts';

const facts = JSON.parse(Deno.readTextFileSync(FACTS_FILE));

Deno.test('lists: account and structure operations, slow fields', () => {
  assert.deepEqual([...ACCOUNT_OPERATIONS], facts.accountOperations.names);
  assert.deepEqual([...ACCOUNT_STRUCTURE_OPERATIONS], facts.accountStructureOperations.names);
  assert.deepEqual([...SLOW_FIELDS], facts.slowFields.names);
});

Deno.test('lists: account scope', () => {
  const s = facts.accountScope;
  assert.deepEqual([...ACCOUNT_SCOPE.currentUserAllowedFields], s.currentUserAllowedFields);
  assert.deepEqual(
    Object.fromEntries(ACCOUNT_SCOPE.currentUserFieldsAllowedWhenArgumentIsABot),
    s.currentUserFieldsAllowedWhenArgumentIsABot,
  );
  assert.deepEqual(
    Object.fromEntries(ACCOUNT_SCOPE.currentUserFieldsAllowedWhenArgumentNamesAResource),
    s.currentUserFieldsAllowedWhenArgumentNamesAResource,
  );
  assert.deepEqual([...ACCOUNT_SCOPE.botFieldsDenied], s.botFieldsDenied);
  assert.deepEqual([...ACCOUNT_SCOPE.botWorkspaceAllowedFields], s.botWorkspaceAllowedFields);
});

Deno.test('lists: bot and resource arguments, limits, scrub', () => {
  assert.deepEqual([...BOT_ID_ARGUMENTS.anyField], facts.botIdArguments.anyField);
  assert.deepEqual(
    Object.fromEntries(BOT_ID_ARGUMENTS.fieldsWithOtherArgumentName),
    facts.botIdArguments.fieldsWithOtherArgumentName,
  );
  const r = facts.resourceIdArguments;
  assert.deepEqual([...RESOURCE_ID_ARGUMENTS.nameEquals], r.isResourceArgumentWhen.nameEquals);
  assert.deepEqual([...RESOURCE_ID_ARGUMENTS.extraNames], r.isResourceArgumentWhen.extraNames);
  assert.deepEqual([...RESOURCE_ID_ARGUMENTS.excludedNames], r.excludedNames);
  assert.deepEqual([...RESOURCE_ID_ARGUMENTS.excludedDeclaredTypes], r.excludedWhenDeclaredTypeIs);
  for (const suffix of r.isResourceArgumentWhen.nameEndsWith) {
    assert.ok(isResourceArgumentName(`flow${suffix}`), suffix);
  }
  assert.equal(RESOURCE_ID_ARGUMENTS.nameSuffix.source, r.isResourceArgumentWhen.nameSuffixRegex);
  assert.deepEqual(
    { ...ANALYSIS_LIMITS },
    {
      maxResourcesPerRequest: r.limits.maxResourcesPerRequest,
      maxVariableNodesWalked: r.limits.maxVariableNodesWalked,
      maxSelectionDepth: r.limits.maxSelectionDepth,
    },
  );
  assert.equal(MAX_IDS_LEARNED_PER_ANSWER, r.fenceMemory.maxIdsLearnedPerAnswer);
  const scrub = facts.upstreamOperationsUsedByService.upstreamMessageScrub;
  assert.equal(UPSTREAM_MESSAGE_SCRUB.replacementMessage, scrub.replacementMessage);
  assert.equal(UPSTREAM_MESSAGE_SCRUB.replacementCode, scrub.replacementCode);
  assert.match(scrub.trigger, new RegExp(UPSTREAM_MESSAGE_SCRUB.trigger));
});

Deno.test('lists: the excluded field arguments are exactly the schema arguments of excluded types', () => {
  const schema = Deno.readTextFileSync(
    new URL('../../data/upstream/schema.graphql', import.meta.url),
  );
  const types = [...RESOURCE_ID_ARGUMENTS.excludedDeclaredTypes].join('|');
  // Field arguments: "field(arg: Type" or ", arg: Type" inside parentheses on one line.
  const found = new Set<string>();
  for (const line of schema.split('\n')) {
    const field = /^\s+(\w+)\(/.exec(line)?.[1];
    if (!field) continue;
    const args = line.slice(line.indexOf('(') + 1, line.lastIndexOf(')'));
    for (const m of args.matchAll(new RegExp(`(\\w+): \\[?(${types})\\b`, 'g'))) {
      const arg = m[1];
      const isBot = BOT_ID_ARGUMENTS.fieldsWithOtherArgumentName.get(field) === arg;
      if (isResourceArgumentName(arg) && !isBot) found.add(`${field}.${arg}`);
    }
  }
  const listed = [...RESOURCE_ID_ARGUMENTS.excludedFieldArguments].map(([f, a]) => `${f}.${a}`);
  assert.deepEqual(found, new Set(listed));
});
