/**
 * The caller's signal on Node (docs/operations.md "Faults"; `CallerSignal` in src/http/request.ts):
 * aborts when the node response closes before its answer was written, i.e. the browser aborted the
 * request or its connection went away. The core cancels the upstream call on it, so the call's
 * in-flight slot is released at once instead of at the upstream deadline.
 *
 * - {@link responseSignal}: for the common path (hosts/node_http/lean.ts): one `close` listener on
 *   the response, no AbortController or EventTarget per request (a lean path: docs/benchmarks.md
 *   "The gateway's own cost").
 * - {@link responseAbortSignal}: an AbortSignal for the Web Request of every other path.
 */
import type { ServerResponse } from 'node:http';
import type { CallerSignal } from '../../src/host_api.ts';

/** Calls `gone` once if `res` closes before its answer was ended. */
function onCallerGone(res: ServerResponse, gone: () => void): void {
  res.once('close', () => {
    if (!res.writableEnded) gone();
  });
}

/** A {@link CallerSignal} over `res` (see the module comment). */
export function responseSignal(res: ServerResponse): CallerSignal {
  let listeners: (() => void)[] = [];
  const signal = {
    aborted: false,
    addEventListener(_type: 'abort', listener: () => void): void {
      if (!signal.aborted) listeners.push(listener);
    },
    removeEventListener(_type: 'abort', listener: () => void): void {
      listeners = listeners.filter((l) => l !== listener);
    },
  };
  onCallerGone(res, () => {
    signal.aborted = true;
    const called = listeners;
    listeners = [];
    for (const listener of called) listener();
  });
  return signal;
}

/** An AbortSignal that aborts when `res` closes before its answer was ended. */
export function responseAbortSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  onCallerGone(res, () => controller.abort());
  return controller.signal;
}
