/**
 * The answer shapes of the /svc/auth routes (SPEC "Route table": provision, bots,
 * recovery-link). Types only: the client library reads them with `import type`.
 *
 * Every refusal is the error envelope `{errors:[{message, extensions:{code}}]}` (SPEC "Error
 * envelope"); the codes are those of "Sign-up and bot routes", "Database hint mapping" and
 * "Recovery-link route".
 */

/** The caller's role in its workspace (every sign-up owns the workspace it opens). */
export type AuthRole = 'owner' | 'admin' | 'member';

/** The caller's workspace (the app's tenant, a row of the backend; not an upstream workspace). */
export interface AuthWorkspace {
  /** Backend workspace id (uuid). */
  id: string;
  name: string;
  role: AuthRole;
}

/** A bot the caller may open. */
export interface AuthBot {
  /** The upstream bot id: the value to put in `botID` variables. */
  id: string;
  name: string;
  /** ISO 8601 timestamp of the backend row. */
  createdAt: string;
}

/**
 * POST <authPath>/provision → 200. `bots`: every bot the caller may open, oldest first;
 * `created`: the bot this call added (also in `bots`), else null; `pending`: another call's
 * first bot was still being created when this call stopped waiting (ask again).
 */
export interface ProvisionAnswer {
  workspace: AuthWorkspace;
  bots: AuthBot[];
  created: AuthBot | null;
  pending: boolean;
}

/** POST <authPath>/bots {name} → 201. */
export interface CreateBotAnswer {
  bot: AuthBot;
}

/** PATCH <authPath>/bots/<id> {name} → 200 (the new name, trimmed). */
export interface RenameBotAnswer {
  bot: { id: string; name: string };
}

/** DELETE <authPath>/bots/<id> → 200. */
export interface DeleteBotAnswer {
  deleted: string;
}

/** POST <authPath>/recovery-link {email} → 200: the link went to the server log only. */
export interface RecoveryLinkAnswer {
  delivered: 'server-log';
}
