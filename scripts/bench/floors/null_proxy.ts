/**
 * The floor of the `targets` scenario: a do-nothing HTTP proxy on the Deno runtime. Every request
 * is forwarded to UPSTREAM (same path and query, same method, the body read whole first) with
 * `authorization: Bearer <TOKEN>` injected, and the upstream's status, content-type and body are
 * answered. No check, no rebuild, no deadline: what any Deno proxy pays before doing its job, so
 * the gateway's figures can be read against it. Not a product piece; the bench only.
 *
 * Run as its own process: `deno run --allow-net --allow-env scripts/bench/floors/null_proxy.ts`
 * with UPSTREAM (http://host:port), TOKEN, HOST (127.0.0.1) and PORT (0: a free port); prints
 * `null proxy listening on <url>`. Exits on SIGTERM.
 */

if (import.meta.main) {
  const upstream = new URL(Deno.env.get('UPSTREAM')!);
  const authorization = `Bearer ${Deno.env.get('TOKEN') ?? ''}`;
  Deno.serve({
    hostname: Deno.env.get('HOST') ?? '127.0.0.1',
    port: Number(Deno.env.get('PORT') ?? '0'),
    onListen: ({ hostname, port }) =>
      console.log(`null proxy listening on http://${hostname}:${port}`),
  }, async (request) => {
    const url = new URL(request.url);
    const answer = await fetch(`${upstream.origin}${url.pathname}${url.search}`, {
      method: request.method,
      headers: {
        authorization,
        'content-type': request.headers.get('content-type') ?? 'application/json',
      },
      body: request.body === null ? null : await request.arrayBuffer(),
    });
    return new Response(answer.body, {
      status: answer.status,
      headers: { 'content-type': answer.headers.get('content-type') ?? 'application/json' },
    });
  });
  Deno.addSignalListener('SIGTERM', () => Deno.exit(0));
}
