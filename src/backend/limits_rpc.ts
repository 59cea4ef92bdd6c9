/**
 * The shared-limits functions of `supabase/migrations/20261127000200_svc_shared_limits.sql`
 * (docs/operations.md "Limits across processes"), called as the service role: svc_tenant_take,
 * svc_socket_open, svc_limits_sync.
 *
 * Every call is cut after `deadlineMs` and never throws: `null` means the backend did not answer
 * usefully (unreachable, deadline passed, a non-200, an unexpected body), which the caller
 * treats as "the backend is away".
 */
import type { BackendRpc } from './rpc.ts';

/** One revocation of the feed: `userId` null means every account lost the bot. */
export interface Revocation {
  userId: string | null;
  botId: string;
}

/** svc_limits_sync's answer: the new cursor and the revocations after the old one. */
export interface SyncAnswer {
  cursor: number;
  revocations: Revocation[];
}

/** The three calls; `onCall` (metrics) is told each function called. */
export interface LimitsBackend {
  /** svc_tenant_take: tokens granted (0: bucket dry), or null (no answer). */
  take(tenant: string, want: number, perMinute: number, spent: number): Promise<number | null>;
  /** svc_socket_open: true admitted, false at the tenant's ceiling, null (no answer). */
  openSocket(
    process: string,
    tenant: string,
    local: number,
    max: number,
    leaseMs: number,
  ): Promise<boolean | null>;
  /** svc_limits_sync with `{tenant: live sockets}` and the cursor (null: first call). */
  sync(
    process: string,
    sockets: Record<string, number>,
    leaseMs: number,
    after: number | null,
  ): Promise<SyncAnswer | null>;
}

/** A whole number within PostgreSQL's integer (the functions' argument type). */
function int(n: number): number {
  return Math.max(0, Math.min(2_147_483_647, Math.floor(n)));
}

function revocationsOf(value: unknown): Revocation[] | null {
  if (!Array.isArray(value)) return null;
  const out: Revocation[] = [];
  for (const row of value) {
    if (typeof row !== 'object' || row === null) continue;
    const r = row as Record<string, unknown>;
    if (typeof r.botId !== 'string') continue;
    out.push({ userId: typeof r.userId === 'string' ? r.userId : null, botId: r.botId });
  }
  return out;
}

/** The calls over `rpc` (a service-role client). */
export function createLimitsBackend(
  rpc: BackendRpc,
  deadlineMs: number,
  onCall?: (fn: string) => void,
): LimitsBackend {
  const call = async (fn: string, args: Record<string, unknown>) => {
    onCall?.(fn);
    const result = await rpc.call(fn, args, deadlineMs);
    return result.status === 200 ? result.data : undefined;
  };
  return {
    async take(tenant, want, perMinute, spent) {
      const data = await call('svc_tenant_take', {
        p_tenant: tenant,
        p_want: int(want),
        p_per_minute: int(perMinute),
        p_spent: int(spent),
      });
      return typeof data === 'number' && data >= 0 ? data : null;
    },
    async openSocket(process, tenant, local, max, leaseMs) {
      const data = await call('svc_socket_open', {
        p_process: process,
        p_tenant: tenant,
        p_local: local,
        p_max: max,
        p_lease_ms: leaseMs,
      });
      return typeof data === 'boolean' ? data : null;
    },
    async sync(process, sockets, leaseMs, after) {
      const data = await call('svc_limits_sync', {
        p_process: process,
        p_sockets: sockets,
        p_lease_ms: leaseMs,
        p_after: after,
      });
      if (typeof data !== 'object' || data === null) return null;
      const d = data as Record<string, unknown>;
      const revocations = revocationsOf(d.revocations);
      if (typeof d.cursor !== 'number' || revocations === null) return null;
      return { cursor: d.cursor, revocations };
    },
  };
}
