/**
 * Live sockets per tenant across processes (docs/operations.md "Limits across processes"; SPEC
 * "Ceilings": live sockets per tenant, close 4429): each process's count per tenant is a lease in
 * the backend (svc_socket_leases) that its sync renews every second and that lapses
 * DEFAULTS.sharedSocketLeaseMs (5 s) after the last renewal, so a process that dies gives its share
 * back within 5 s (plus one sync).
 *
 * - Opening: one svc_socket_open call (sockets open far less often than requests are sent, and
 *   the connection_init already waits on the gate), admitted against this process's own count
 *   plus every other process's live one; opens of one tenant go one at a time in a process.
 *   Closing: the count drops here at once, and reaches the other processes with the next sync.
 * - Bounds: no overshoot while the backend answers. svc_socket_open is serialised per tenant;
 *   a sync sent while an open is at the backend counts that open as live; and no open is sent
 *   while a sync is at the backend, since the database may run the two in either order and a
 *   sync whose counts were read before the open, run after it, would write this process's
 *   count one low (the other processes would then admit one over the ceiling). A slot freed
 *   elsewhere, or an open refused, is seen within one sync (undershoot for at most 1 s).
 * - The backend not answering: per-process ceilings (each process admits up to the tenant's
 *   ceiling on its own count) until it answers; the next sync then writes the true counts, and a
 *   tenant over its ceiling opens no new socket until it is back under.
 */
import type { LimitsBackend } from '../backend/limits_rpc.ts';
import type { Link } from './link.ts';

/** What the shared socket counts need. */
export interface SocketDeps {
  backend: LimitsBackend;
  link: Link;
  /** This process's id in svc_socket_leases. */
  process: string;
  /** The tenant's ceiling of live sockets. */
  max: (key: string) => number;
  /** ms a count stays valid without renewal. */
  leaseMs: number;
  /** The sync call at the backend now (settles, never rejects), or null (sync.ts). */
  syncing: () => Promise<unknown> | null;
}

/** The shared socket slots. */
export interface SharedSockets {
  /** A release (idempotent) when admitted, null at the ceiling. */
  open(key: string): Promise<(() => void) | null>;
  /**
   * This process's live sockets per tenant (tenants with at least one), an open at the backend
   * counted as live.
   */
  counts(): Record<string, number>;
}

/** Builds the shared socket slots of one process. */
export function createSharedSockets(deps: SocketDeps): SharedSockets {
  const { backend, link } = deps;
  /** tenant -> live sockets in this process (bounded by the relay's socket ceiling). */
  const live = new Map<string, number>();

  const admit = (key: string): () => void => {
    live.set(key, (live.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (live.get(key) ?? 1) - 1;
      if (left > 0) live.set(key, left);
      else live.delete(key);
    };
  };

  const local = (key: string) => (live.get(key) ?? 0) < deps.max(key) ? admit(key) : null;

  /** tenant -> the open in flight: one at a time per tenant, so `live` is the process's word. */
  const opening = new Map<string, Promise<unknown>>();

  /**
   * Tenants whose svc_socket_open is at the backend now (at most one each). The sync counts it
   * as live: a sync that the database runs after the open must not write the count from before
   * it (the other processes would then see one socket fewer than this process holds).
   */
  const asking = new Set<string>();

  const ask = async (key: string): Promise<(() => void) | null> => {
    // not sent while a sync is at the backend (the bounds above); the wait is one sync call,
    // cut at the backend's deadline like every call
    for (let sync = deps.syncing(); sync !== null; sync = deps.syncing()) await sync;
    if (!link.shared) return local(key);
    asking.add(key);
    let ok: boolean | null;
    try {
      ok = await backend.openSocket(
        deps.process,
        key,
        live.get(key) ?? 0,
        deps.max(key),
        deps.leaseMs,
      );
    } finally {
      asking.delete(key);
    }
    if (ok === null) {
      link.failed();
      return local(key);
    }
    link.answered();
    return ok ? admit(key) : null;
  };

  return {
    open(key) {
      const before = opening.get(key) ?? Promise.resolve();
      const mine = before.then(() => ask(key));
      const settled = mine.catch(() => null);
      opening.set(key, settled);
      void settled.then(() => {
        if (opening.get(key) === settled) opening.delete(key);
      });
      return mine;
    },
    counts: () => {
      const counts = Object.fromEntries(live);
      for (const key of asking) counts[key] = (counts[key] ?? 0) + 1;
      return counts;
    },
  };
}
