/**
 * The GraphQL documents the gateway itself sends upstream with the master
 * token (facts.json upstreamOperationsUsedByService). Not subject to the
 * allowlist; POST {upstream}/graphql with content-type and authorization only.
 */
import { DEFAULTS } from '../config/defaults.ts';
import { nestsDeeperThan } from '../http/json_depth.ts';
import { fetchWithDeadline } from './outbound.ts';

/** The bot fence's question: every bot of the master-token account. */
export const SVC_WORKSPACE_BOTS = {
  name: 'SvcWorkspaceBots',
  document: 'query SvcWorkspaceBots { currentUser { id workspaces { id bots { id } } } }',
} as const;

/** A workspace of the master-token account with its bot ids. */
export interface UpstreamWorkspace {
  id: string;
  botIds: string[];
}

/**
 * Asks SvcWorkspaceBots. Resolves to the account's workspaces, or null when
 * the upstream did not answer in `timeoutMs`, answered non-200, carried any
 * errors entry, or an unexpected shape (facts: "any errors entry => fence
 * answer unknown").
 */
export async function fetchWorkspaceBots(
  fetchImpl: typeof fetch,
  upstream: string,
  token: string,
  timeoutMs: number,
): Promise<UpstreamWorkspace[] | null> {
  const outcome = await fetchWithDeadline(
    fetchImpl,
    `${upstream}/graphql?op=${SVC_WORKSPACE_BOTS.name}`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: SVC_WORKSPACE_BOTS.document }),
    },
    timeoutMs,
  );
  if ('refused' in outcome) return null;
  try {
    if (outcome.response.status !== 200) {
      await outcome.response.body?.cancel();
      return null;
    }
    const json = await outcome.response.json();
    return readWorkspaces(json);
  } catch {
    return null;
  } finally {
    outcome.done();
  }
}

function readWorkspaces(json: unknown): UpstreamWorkspace[] | null {
  const body = json as { errors?: unknown; data?: { currentUser?: { workspaces?: unknown } } };
  if (body?.errors !== undefined) return null;
  const workspaces = body?.data?.currentUser?.workspaces;
  if (!Array.isArray(workspaces)) return null;
  const out: UpstreamWorkspace[] = [];
  for (const ws of workspaces) {
    if (typeof ws?.id !== 'string' || !Array.isArray(ws.bots)) return null;
    const botIds = ws.bots.map((b: { id?: unknown }) => b?.id).filter((id: unknown) =>
      typeof id === 'string'
    );
    out.push({ id: ws.id, botIds });
  }
  return out;
}

/** One of the gateway's own operations: its name (the `?op=` value) and its document. */
export interface ServiceOperation {
  readonly name: string;
  readonly document: string;
}

/** Creates a bot in a workspace (facts.json SvcProvisionBot; sign-up and POST <authPath>/bots). */
export const SVC_PROVISION_BOT: ServiceOperation = {
  name: 'SvcProvisionBot',
  document:
    'mutation SvcProvisionBot($workspaceID: WorkspaceID!, $title: String!) { workspaceCreateBot(workspaceID: $workspaceID, initialTitle: $title) { id } }',
};

/** Renames a bot (facts.json SvcRenameBot; PATCH <authPath>/bots/<id>, admin rename). */
export const SVC_RENAME_BOT: ServiceOperation = {
  name: 'SvcRenameBot',
  document:
    'mutation SvcRenameBot($botID: BotID!, $title: String!) { renameBot(botID: $botID, newTitle: $title) { id } }',
};

/** Deletes a bot (facts.json SvcDeleteBot; DELETE <authPath>/bots/<id>, admin delete, rollback). */
export const SVC_DELETE_BOT: ServiceOperation = {
  name: 'SvcDeleteBot',
  document: 'mutation SvcDeleteBot($botID: BotID!) { deleteBot(botID: $botID) { id } }',
};

/** Delete answers that mean the bot is gone already (facts.json SvcDeleteBot). */
export const ALREADY_DELETED_CODES: readonly string[] = [
  'BotDoesNotExist',
  'NotFound',
  'NotEnoughPermissions',
];

/** Create answers about the workspace itself (facts.json SvcProvisionBot: 500 ProxyAuthMisconfigured). */
export const WORKSPACE_REFUSAL_CODES: readonly string[] = [
  'WorkspaceDoesNotExist',
  'NotEnoughPermissions',
];

/** What a service-operation call needs: the host's fetch, the upstream base, token, deadline (ms). */
export interface ServiceCall {
  fetch: typeof fetch;
  upstream: string;
  token: string;
  timeoutMs: number;
}

/**
 * The raw answer to one operation:
 * - `answered`: HTTP 200 with a JSON body: `data` (or null) and every error code, nested codes
 *   first, then the outer one (facts: codes are read at both levels);
 * - `unreachable`: no answer within the deadline, the connection failed, or the body broke off;
 * - `failed`: any status other than 200 (`status`), or 200 with a body that is not JSON (`status`
 *   200).
 */
export type ServiceAnswer =
  | { kind: 'answered'; data: Record<string, unknown> | null; codes: string[] }
  | { kind: 'unreachable' }
  | { kind: 'failed'; status: number };

/** Every error code of an `errors` array: per entry, nested `extensions.errors[]` codes, then its own. */
export function upstreamErrorCodes(errors: unknown): string[] {
  if (!Array.isArray(errors)) return [];
  const codes: string[] = [];
  for (const entry of errors) {
    const ext = (entry as { extensions?: { code?: unknown; errors?: unknown } })?.extensions;
    if (Array.isArray(ext?.errors)) {
      for (const nested of ext.errors) {
        const code = (nested as { extensions?: { code?: unknown } })?.extensions?.code;
        if (typeof code === 'string') codes.push(code);
      }
    }
    if (typeof ext?.code === 'string') codes.push(ext.code);
  }
  return codes;
}

/**
 * Sends `operation` with `variables` to `{upstream}/graphql?op=<name>` with the master token and
 * reads the answer. Never throws, never logs. An answer that is not JSON, or nests deeper than
 * DEFAULTS.jsonDepthHardMax (its parts are passed on re-serialised, which could exhaust the call
 * stack; docs/readings.md "JSON nesting depth"), is `failed`.
 */
export async function sendServiceOperation(
  call: ServiceCall,
  operation: ServiceOperation,
  variables: Record<string, unknown>,
): Promise<ServiceAnswer> {
  const outcome = await fetchWithDeadline(
    call.fetch,
    `${call.upstream}/graphql?op=${operation.name}`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${call.token}` },
      body: JSON.stringify({ query: operation.document, variables }),
    },
    call.timeoutMs,
  );
  if ('refused' in outcome) return { kind: 'unreachable' };
  try {
    if (outcome.response.status !== 200) {
      await outcome.response.body?.cancel();
      return { kind: 'failed', status: outcome.response.status };
    }
    const text = await outcome.response.text();
    if (nestsDeeperThan(text, DEFAULTS.jsonDepthHardMax)) return { kind: 'failed', status: 200 };
    let json: { data?: unknown; errors?: unknown };
    try {
      json = JSON.parse(text);
    } catch {
      return { kind: 'failed', status: 200 };
    }
    const data = json?.data && typeof json.data === 'object'
      ? json.data as Record<string, unknown>
      : null;
    return { kind: 'answered', data, codes: upstreamErrorCodes(json?.errors) };
  } catch {
    return { kind: 'unreachable' };
  } finally {
    outcome.done();
  }
}

/**
 * SvcProvisionBot's outcome (facts.json errorCodes):
 * - `created`: `data.workspaceCreateBot.id` (the upstream bot id);
 * - `workspace_full`: TooManyBotsInWorkspace (auth: 409 WorkspaceFull);
 * - `workspace_refused`: WorkspaceDoesNotExist or NotEnoughPermissions, `code` says which
 *   (auth: 500 ProxyAuthMisconfigured naming the workspace id);
 * - `refused`: anything else; `status` is the HTTP status (200 when it answered with other errors
 *   or no id), `codes` the error codes read (auth: 502 ProvisionRefused);
 * - `unreachable`: no answer (auth: 502 ProvisionUnreachable).
 */
export type CreateBotOutcome =
  | { kind: 'created'; botId: string }
  | { kind: 'workspace_full' }
  | { kind: 'workspace_refused'; code: string }
  | { kind: 'refused'; status: number; codes: string[] }
  | { kind: 'unreachable' };

/** Sends SvcProvisionBot: creates a bot titled `title` in upstream workspace `workspaceId`. */
export async function provisionBot(
  call: ServiceCall,
  workspaceId: string,
  title: string,
): Promise<CreateBotOutcome> {
  const answer = await sendServiceOperation(call, SVC_PROVISION_BOT, {
    workspaceID: workspaceId,
    title,
  });
  if (answer.kind === 'unreachable') return answer;
  if (answer.kind === 'failed') return { kind: 'refused', status: answer.status, codes: [] };
  const created = answer.data?.workspaceCreateBot as { id?: unknown } | null | undefined;
  if (answer.codes.length === 0 && typeof created?.id === 'string' && created.id !== '') {
    return { kind: 'created', botId: created.id };
  }
  if (answer.codes.includes('TooManyBotsInWorkspace')) return { kind: 'workspace_full' };
  const workspaceCode = answer.codes.find((c) => WORKSPACE_REFUSAL_CODES.includes(c));
  if (workspaceCode !== undefined) return { kind: 'workspace_refused', code: workspaceCode };
  return { kind: 'refused', status: 200, codes: answer.codes };
}

/**
 * SvcRenameBot / SvcDeleteBot outcome:
 * - `done`: `data.<field>` present and no error (for delete also: a code of
 *   ALREADY_DELETED_CODES, `alreadyGone` true);
 * - `refused`: any other answer (`status` 200 when the upstream answered with errors);
 * - `unreachable`: no answer.
 */
export type BotChangeOutcome =
  | { kind: 'done'; alreadyGone: boolean }
  | { kind: 'refused'; status: number; codes: string[] }
  | { kind: 'unreachable' };

/** Sends SvcRenameBot: renames upstream bot `botId` to `title`. */
export async function renameBot(
  call: ServiceCall,
  botId: string,
  title: string,
): Promise<BotChangeOutcome> {
  const answer = await sendServiceOperation(call, SVC_RENAME_BOT, { botID: botId, title });
  if (answer.kind === 'unreachable') return answer;
  if (answer.kind === 'failed') return { kind: 'refused', status: answer.status, codes: [] };
  if (answer.codes.length === 0 && answer.data?.renameBot) {
    return { kind: 'done', alreadyGone: false };
  }
  return { kind: 'refused', status: 200, codes: answer.codes };
}

/** Sends SvcDeleteBot: deletes upstream bot `botId` (BotDoesNotExist & co.: already gone). */
export async function deleteBot(call: ServiceCall, botId: string): Promise<BotChangeOutcome> {
  const answer = await sendServiceOperation(call, SVC_DELETE_BOT, { botID: botId });
  if (answer.kind === 'unreachable') return answer;
  if (answer.kind === 'failed') return { kind: 'refused', status: answer.status, codes: [] };
  if (answer.codes.length === 0 && answer.data?.deleteBot) {
    return { kind: 'done', alreadyGone: false };
  }
  if (answer.codes.length > 0 && answer.codes.every((c) => ALREADY_DELETED_CODES.includes(c))) {
    return { kind: 'done', alreadyGone: true };
  }
  return { kind: 'refused', status: 200, codes: answer.codes };
}
