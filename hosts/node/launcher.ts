/**
 * The bin started by npx (`npm exec`): npm runs it in a shell and, sent SIGTERM or SIGINT, exits
 * without passing the signal on (npm 11 on Node 20: npm and the shell end, the bin is left
 * running under init, still listening). A process manager or a container runtime that stops
 * `npx svc-gateway` that way would leave the gateway running, and kill it later without a drain.
 * So when npm started the bin (`npm_command` is `exec`), the bin watches the process that
 * started it, once a second: when it is gone (the bin's parent changed), the bin closes as on
 * SIGTERM (docs/operations.md "Shutdown"). Started any other way (node, a service file, a
 * shell's `exec`), nothing is watched: a parent that goes away is not a stop.
 */
import process from 'node:process';

/** How often the parent is looked at, in ms. */
export const LAUNCHER_CHECK_MS = 1_000;

/**
 * Calls `gone` once, when the npm process that started this one has gone; does nothing unless
 * `env.npm_command` is `exec` (started by npx or `npm exec`). Returns a function that stops the
 * watch. The timer never keeps the process alive.
 */
export function whenLauncherGone(
  env: Readonly<Record<string, string | undefined>>,
  gone: () => void,
  everyMs = LAUNCHER_CHECK_MS,
): () => void {
  if (env.npm_command !== 'exec') return () => {};
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    gone();
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
