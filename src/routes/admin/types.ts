/**
 * Request and response shapes of /svc/admin (SPEC "Admin panel: /svc/admin"; the spec shows no
 * bodies, these are this gateway's). Type-only: the client library imports them with
 * `import type`. Refusals use the error envelope; ids are the upstream's unless said otherwise.
 */

/** GET, POST and DELETE /session answer. `expiresAt`: ISO 8601, null once signed out. */
export interface AdminSessionAnswer {
  unlocked: boolean;
  expiresAt: string | null;
}

/** POST /session body (at most 4 KiB). */
export interface AdminUnlockRequest {
  password: string;
}

/** A bot as the overview and workspaces list it. */
export interface AdminBotSummary {
  id: string;
  title: string;
}

/** A workspace of the upstream account. `home`: the deployment's own (SVC_WORKSPACE_ID). */
export interface AdminWorkspaceSummary {
  id: string;
  title: string;
  botsLimit: number | null;
  home: boolean;
  bots: AdminBotSummary[];
}

/** GET /overview: the upstream account behind the master token. */
export interface AdminOverview {
  account: { id: string; name: string | null; email: string | null };
  workspaces: AdminWorkspaceSummary[];
}

/** One deployment setting: its variable name and whether it is set (never its value). */
export interface AdminSetting {
  name: string;
  present: boolean;
}

/** GET /health. */
export interface AdminHealth {
  token: {
    /** Whether the upstream accepted the master token just now. */
    works: boolean;
    /** 'ok', 'missing' (no token), 'refused' (upstream said Unauthorized or answered no id),
     * 'unreachable' (no answer in time) or 'failed' (other HTTP status). */
    state: 'ok' | 'missing' | 'refused' | 'unreachable' | 'failed';
    account: { id: string; name: string | null; email: string | null } | null;
  };
  settings: AdminSetting[];
  /** Configuration problems by code (ProxyTokenMissing, ...). */
  problems: string[];
  gate: 'on' | 'off' | 'misconfigured';
}

/** GET /workspaces/<id>. `billing`: null when the upstream could not say. */
export interface AdminWorkspaceDetail {
  workspace: AdminWorkspaceSummary;
  billing: { id: string | null; status: string | null; isOnTrialPeriod: boolean | null } | null;
}

/** GET /bots/<id>: the upstream's bot detail (SvcAdminBot) and the token owner's role on it. */
export interface AdminBotDetail {
  bot: {
    id: string;
    title: string;
    createdAt: string | null;
    isReady: boolean | null;
    countryCode: string | null;
    timezone: string | null;
    industry: { category: string | null; subCategory: string | null } | null;
    workspace: { id: string; title: string } | null;
    contactScopes: { __typename: string; id: string }[];
    members: { id: string; role: { roleTypeV2: string } | null; user: unknown }[];
  };
  role: { roleTypeV2: string | null; botPermissions: { object: string; action: string }[] } | null;
  /** The deployment's own workspace, and whether this is its last bot (delete refused). */
  home: boolean;
}

/** POST /bots body. */
export interface AdminBotCreateRequest {
  workspaceId: string;
  name: string;
}

/** PATCH /bots/<id> body. */
export interface AdminBotRenameRequest {
  name: string;
}

/** POST /bots (201) and PATCH /bots/<id> answer. `recorded`: written to the backend. */
export interface AdminBotAnswer {
  id: string;
  title: string;
  workspaceId: string | null;
  recorded: boolean;
}

/** DELETE /bots/<id> answer. `socketsClosed`: live sockets of grantees ended with 4401. */
export interface AdminBotDeleted {
  id: string;
  deleted: true;
  workspaceDeleted: boolean;
  socketsClosed: number;
}

/** A bot row of a tenant (`id` is the backend row id; `upstreamBotId` null until upstream). */
export interface AdminTenantBot {
  id: string;
  name: string;
  upstreamBotId: string | null;
  /** This account holds a per-bot grant on it. */
  granted: boolean;
}

/** An account of the app with its workspaces. */
export interface AdminTenantAccount {
  userId: string;
  email: string | null;
  createdAt: string;
  workspaces: {
    id: string;
    name: string;
    role: 'owner' | 'admin' | 'member';
    bots: AdminTenantBot[];
  }[];
}

/** GET /tenants (oldest 1000 accounts; `truncated` when there are more). */
export interface AdminTenants {
  accounts: AdminTenantAccount[];
  truncated: boolean;
}

/** POST /grants body; DELETE /grants?botId=<upstream bot id>&userId=<account id>. */
export interface AdminGrantRequest {
  botId: string;
  userId: string;
}

/** POST /grants answer. */
export interface AdminGrantAnswer {
  botId: string;
  userId: string;
  workspaceId: string;
  granted: true;
}

/** DELETE /grants answer. `socketsClosed`: that account's sockets holding the bot, ended 4401. */
export interface AdminRevokeAnswer {
  botId: string;
  userId: string;
  revoked: boolean;
  socketsClosed: number;
}
