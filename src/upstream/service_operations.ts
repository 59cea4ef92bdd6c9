/**
 * The GraphQL documents the gateway itself sends upstream with the master
 * token (facts.json upstreamOperationsUsedByService). Not subject to the
 * allowlist; POST {upstream}/graphql with content-type and authorization only.
 */
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
