/**
 * Small browser helpers of the client: same-origin URLs, an abortable sleep, and a wait that the
 * browser's `online` event ends early. Web APIs only (URL, setTimeout, AbortSignal, location,
 * the global `online` event).
 */

/** The page's own origin, or null outside a page (e.g. a worker-less test runtime). */
function pageOrigin(): string | null {
  const location = (globalThis as { location?: { origin?: string } }).location;
  return location?.origin && location.origin !== 'null' ? location.origin : null;
}

/**
 * An absolute URL for `path` on the page's own origin (or `path` itself when there is no page
 * origin). `path` starts with '/'.
 */
export function sameOriginUrl(path: string): string {
  const origin = pageOrigin();
  return origin ? new URL(path, origin).href : path;
}

/**
 * The WebSocket URL for an HTTP(S) or WS(S) URL or a path: http becomes ws, https wss; a path
 * resolves against the page's origin. Throws TypeError when no absolute URL can be made.
 */
export function socketUrl(url: string): string {
  const origin = pageOrigin();
  const absolute = origin ? new URL(url, origin) : new URL(url);
  if (absolute.protocol === 'http:') absolute.protocol = 'ws:';
  else if (absolute.protocol === 'https:') absolute.protocol = 'wss:';
  return absolute.href;
}

/** Resolves after `ms`; rejects with the signal's reason (timer cleared) when it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Resolves after `ms`, or at once when the browser fires `online` (SPEC "WebSocket close codes":
 * the socket backoff is "resolved early when the browser goes online"), or when `signal` aborts.
 * Never rejects; every listener and the timer are removed when it resolves.
 */
export function sleepOrOnline(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const target = globalThis as unknown as Partial<EventTarget>;
    const done = () => {
      clearTimeout(timer);
      target.removeEventListener?.('online', done);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    target.addEventListener?.('online', done);
    signal?.addEventListener('abort', done);
    if (signal?.aborted) done();
  });
}
