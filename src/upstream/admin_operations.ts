/**
 * The admin panel's own upstream documents (facts.json upstreamOperationsUsedByService:
 * SvcAdminOverview, SvcAdminWorkspace, SvcAdminWorkspaceBilling, SvcAdminBot, SvcAdminCreateBot,
 * SvcAdminPing) and one caller for them. Sent with the master token, not subject to the
 * allowlist. Sent with `sendServiceOperation` of service_operations.ts, which also holds the
 * rename and delete documents the panel shares with the auth routes.
 */
import type { ServiceOperation } from './service_operations.ts';

export const SVC_ADMIN_OVERVIEW: ServiceOperation = {
  name: 'SvcAdminOverview',
  document:
    'query SvcAdminOverview {\n  currentUser {\n    id\n    name\n    email\n    workspaces { id title botsLimit bots { id title } }\n  }\n}',
};

export const SVC_ADMIN_WORKSPACE: ServiceOperation = {
  name: 'SvcAdminWorkspace',
  document:
    'query SvcAdminWorkspace($workspaceID: WorkspaceID!) {\n  currentUser {\n    id\n    workspace(id: $workspaceID) {\n      id\n      title\n      botsLimit\n      bots { id title }\n    }\n  }\n}',
};

/** Asked separately and allowed to fail (Workspace.subscription is not in the shipped schema). */
export const SVC_ADMIN_WORKSPACE_BILLING: ServiceOperation = {
  name: 'SvcAdminWorkspaceBilling',
  document:
    'query SvcAdminWorkspaceBilling($workspaceID: WorkspaceID!) {\n  currentUser {\n    id\n    workspace(id: $workspaceID) { id subscription { id status isOnTrialPeriod } }\n  }\n}',
};

export const SVC_ADMIN_BOT: ServiceOperation = {
  name: 'SvcAdminBot',
  document:
    'query SvcAdminBot($botID: BotID!) {\n  bot(id: $botID) {\n    id\n    title\n    createdAt\n    isReady\n    countryCode\n    timezone\n    industry { category subCategory }\n    workspace { id title }\n    contactScopes { __typename id }\n    members { id role { roleTypeV2 } user { id name isUnknown } }\n  }\n  currentUser { id botRole(botID: $botID) { roleTypeV2 botPermissions { object action } } }\n}',
};

export const SVC_ADMIN_CREATE_BOT: ServiceOperation = {
  name: 'SvcAdminCreateBot',
  document:
    'mutation SvcAdminCreateBot($workspaceID: WorkspaceID!, $title: String!) {\n  workspaceCreateBot(workspaceID: $workspaceID, initialTitle: $title) { id title }\n}',
};

export const SVC_ADMIN_PING: ServiceOperation = {
  name: 'SvcAdminPing',
  document: 'query SvcAdminPing { currentUser { id name email } }',
};
