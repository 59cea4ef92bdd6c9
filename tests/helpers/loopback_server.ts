/**
 * A Deno.serve server on a free loopback port, for the tests' own small upstreams: its URL once it
 * listens, and a close that stops it and waits until it has finished.
 */

/** A running loopback server. */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Stops listening, and resolves once every connection is done. */
  close(): Promise<void>;
}

/** Starts `handler` on 127.0.0.1 at a free port; resolves once it listens. */
export function serveLoopback(handler: Deno.ServeHandler): Promise<LoopbackServer> {
  const ac = new AbortController();
  const { promise, resolve } = Promise.withResolvers<LoopbackServer>();
  const server = Deno.serve({
    hostname: '127.0.0.1',
    port: 0,
    signal: ac.signal,
    onListen: ({ port }) =>
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: async () => {
          ac.abort();
          await server.finished;
        },
      }),
  }, handler);
  return promise;
}
