/**
 * A full garbage collection in another process, forced through its inspector (the V8 inspector
 * protocol's `HeapProfiler.collectGarbage`; Node and Deno both speak it). The relay scenario
 * starts the hosts of its stalled-subscriber pass with `--inspect=127.0.0.1:0` so it can read
 * their resident memory after a collection: the bench forces it, never the product.
 */

/** The inspector's WebSocket URL from a process's stderr lines (`Debugger listening on ws://…`). */
export function inspectorUrl(errors: readonly string[]): string | null {
  for (const line of errors) {
    const match = line.match(/(ws:\/\/\S+)/);
    if (match && /debugger/i.test(line)) return match[1];
  }
  return null;
}

/**
 * Asks the process behind `url` for a full collection and resolves once it answered (rejects
 * after `timeoutMs` or when the inspector closes first).
 */
export function collectGarbage(url: string, timeoutMs = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const timer = setTimeout(() => finish(new Error('the inspector did not answer')), timeoutMs);
    const finish = (error?: Error) => {
      clearTimeout(timer);
      if (ws.readyState === WebSocket.OPEN) ws.close();
      error ? reject(error) : resolve();
    };
    ws.onopen = () => ws.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' }));
    ws.onmessage = (event) => {
      if (JSON.parse(String(event.data)).id === 1) finish();
    };
    ws.onerror = () => finish(new Error('the inspector socket failed'));
    ws.onclose = () => finish(new Error('the inspector closed'));
  });
}
