/**
 * Whether the shared limits are in force or the process has fallen back to its own
 * (docs/operations.md "Limits across processes": "a backend that is slow or down must not stop
 * traffic: fall back to the per-process limits, and say so once in the log and in a metric, until
 * it answers again").
 *
 * Any shared-limits call that gets no answer (deadline passed, unreachable, non-200) calls
 * `failed()`; the first one of an outage logs one line and counts one fallback. Any answer calls
 * `answered()`; the first one after an outage logs one line, the process is shared again and
 * `onShared` is told (budget.ts then debits at once what the process admitted meanwhile). A backend that keeps flapping writes
 * at most one fallback line a minute (the next one counts the outages not written); the metric
 * counts every one.
 */

/** The mode of one process. */
export interface Link {
  /** True while the backend answers: the shared limits decide. */
  readonly shared: boolean;
  /** A call got no answer. */
  failed(): void;
  /** A call got an answer. */
  answered(): void;
}

/** What the link reports to. */
export interface LinkDeps {
  /** One human log line (never a key or token). */
  log: (line: string) => void;
  /** Told each fall back (the metrics' svc_shared_limits_fallbacks_total). */
  onFallback?: () => void;
  /** Told when the backend answers again after an outage (the budget's reconciliation). */
  onShared?: () => void;
  /** ms between two fallback lines at least (a flapping backend): DEFAULTS.sharedLogEveryMs. */
  logEveryMs: number;
  now?: () => number;
}

/** A link that starts shared. */
export function createLink(deps: LinkDeps): Link {
  const now = deps.now ?? Date.now;
  let shared = true;
  let loggedAt = -Infinity;
  /** Whether this outage's line was written (then its end is written too). */
  let said = false;
  /** Outages not written since the last line. */
  let unsaid = 0;
  return {
    get shared() {
      return shared;
    },
    failed() {
      if (!shared) return;
      shared = false;
      deps.onFallback?.();
      said = now() - loggedAt >= deps.logEveryMs;
      if (!said) return void unsaid++;
      loggedAt = now();
      const more = unsaid > 0 ? ` (${unsaid} more since the last line)` : '';
      unsaid = 0;
      deps.log(
        `svc-gateway: shared tenant limits: the backend did not answer; per-process limits until it does${more}`,
      );
    },
    answered() {
      if (shared) return;
      shared = true;
      if (said) {
        deps.log('svc-gateway: shared tenant limits: the backend answers again; limits shared');
      }
      deps.onShared?.();
    },
  };
}
