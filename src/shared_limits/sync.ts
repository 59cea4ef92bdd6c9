/**
 * Each process's sync with the backend (docs/operations.md "Limits across processes"): one
 * svc_limits_sync call every DEFAULTS.sharedSyncMs (1 s), never two at once, that
 *
 * - renews this process's live-socket counts (sockets.ts) for DEFAULTS.sharedSocketLeaseMs and
 *   drops the tenants it no longer holds sockets for;
 * - reads the revocation feed after its cursor and hands the rows to `apply` (the gate forgets
 *   the account, its sockets holding the bot close 4401): a revoke answered by any process
 *   reaches this one within one sync interval plus the call, under 2 s;
 * - is the probe that brings the process back to shared limits after an outage (link.ts).
 *
 * The first call only fetches the cursor (a revocation older than the process concerns nothing
 * it holds). `close()` stops the timer, waits for the call in flight and gives every count back
 * with one last call (best effort, under the deadline).
 */
import type { LimitsBackend, Revocation } from '../backend/limits_rpc.ts';
import type { Link } from './link.ts';

/** What the sync needs. */
export interface SyncDeps {
  backend: LimitsBackend;
  link: Link;
  process: string;
  /** This process's live sockets per tenant now. */
  counts: () => Record<string, number>;
  /** Applies revocations read from the feed. */
  apply: (rows: Revocation[]) => void;
  /** One line when applying the feed threw (the sync goes on). */
  log: (line: string) => void;
  /** ms between calls. */
  intervalMs: number;
  /** ms the counts stay valid. */
  leaseMs: number;
}

/** The running sync. */
export interface Sync {
  /** The call at the backend now (settles, never rejects), or null. */
  inFlight(): Promise<void> | null;
  /** Stops it and gives the counts back. */
  close(): Promise<void>;
}

/** Starts the sync (first call at once). */
export function startSync(deps: SyncDeps): Sync {
  const { backend, link } = deps;
  let cursor: number | null = null;
  let inFlight: Promise<void> | null = null;
  let closed = false;

  const tick = () => {
    if (inFlight !== null || closed) return;
    inFlight = backend.sync(deps.process, deps.counts(), deps.leaseMs, cursor).then((answer) => {
      if (answer === null) return link.failed();
      link.answered();
      if (cursor !== null && answer.revocations.length > 0) {
        try {
          deps.apply(answer.revocations);
        } catch {
          // a throw here would be an unhandled rejection, which ends the process
          deps.log('shared tenant limits: applying revocations failed; the sync goes on');
        }
      }
      cursor = answer.cursor;
    }).finally(() => {
      inFlight = null;
    });
  };

  tick();
  const timer = setInterval(tick, deps.intervalMs);
  return {
    inFlight: () => inFlight,
    async close() {
      closed = true;
      clearInterval(timer);
      await inFlight;
      await backend.sync(deps.process, {}, deps.leaseMs, cursor);
    },
  };
}
