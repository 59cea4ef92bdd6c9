/**
 * The floor of the `relay` scenario: a do-nothing WebSocket relay on the Deno runtime. Every
 * upgrade on any path opens a socket to UPSTREAM (ws://host:port/path) with subprotocol
 * graphql-transport-ws and passes each text frame across as it comes, both ways; frames the
 * browser sends before the upstream leg is open wait in order. No parse, no check, no
 * re-serialise (which the gateway must do: SPEC "WebSocket relay"), no token injection (the
 * client sends its own in connection_init). Not a product piece; the bench only.
 *
 * Run as its own process: `deno run --allow-net --allow-env scripts/bench/floors/null_relay.ts`
 * with UPSTREAM, HOST (127.0.0.1) and PORT (0); prints `null relay listening on <url>`.
 */

const PROTOCOL = 'graphql-transport-ws';

/** Joins a browser socket to a new upstream socket (closing either closes the other). */
function join(browser: WebSocket, upstreamUrl: string): void {
  const upstream = new WebSocket(upstreamUrl, PROTOCOL);
  const waiting: string[] = [];
  upstream.onopen = () => {
    for (const frame of waiting.splice(0)) upstream.send(frame);
  };
  browser.onmessage = (event) => {
    if (upstream.readyState === WebSocket.OPEN) upstream.send(event.data);
    else waiting.push(event.data);
  };
  upstream.onmessage = (event) => browser.send(event.data);
  browser.onclose = () => upstream.close();
  upstream.onclose = () => {
    if (browser.readyState === WebSocket.OPEN) browser.close();
  };
}

if (import.meta.main) {
  const upstreamUrl = Deno.env.get('UPSTREAM')!;
  Deno.serve({
    hostname: Deno.env.get('HOST') ?? '127.0.0.1',
    port: Number(Deno.env.get('PORT') ?? '0'),
    onListen: ({ hostname, port }) =>
      console.log(`null relay listening on http://${hostname}:${port}`),
  }, (request) => {
    const { socket, response } = Deno.upgradeWebSocket(request, { protocol: PROTOCOL });
    join(socket, upstreamUrl);
    return response;
  });
  Deno.addSignalListener('SIGTERM', () => Deno.exit(0));
}
