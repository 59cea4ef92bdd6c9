/**
 * The Deno host with options the environment cannot carry, for the bench's checks scenario: a
 * copy of `deno task serve` (hosts/deno/serve.ts) that also passes `createSvcProxy` options.
 *
 * - SVC_BENCH_REGISTRY=app: option `operations` is every app document, one operation each
 *   (the sandbox's `appOperations()`, the same texts the bench sends): SPEC "Document checks in
 *   detail", document registry.
 * - SVC_BENCH_ALLOWED_BOT_IDS: option `allowedBotIds`, 'any' or a comma-separated list.
 * - SVC_BENCH_UPSTREAM_LEG=web: the relay's upstream leg on Deno's own WebSocket client (the
 *   leg without flow control; it cannot pause) instead of the host's `ws` one, for the relay
 *   scenario's comparison.
 * - SVC_BENCH_DENO_SERVE=1: served by Deno.serve with the fetch handler of `deno task
 *   serve:parallel` (hosts/deno_parallel/serve_handler.ts, Deno.upgradeWebSocket for the browser leg) in
 *   one process, instead of `serveDeno`'s node:http and `ws` (hosts/deno/server.ts): the Deno
 *   host before and after its switch, measured in the same run (scenarios relay and targets).
 *
 * Everything else comes from the environment as with `deno task serve` (SVC_TOKEN,
 * SVC_API_BASE, SVC_RESOURCE_FENCE, HOST, PORT). Prints the startup lines, then
 * `svc-gateway listening on <url>`. Exits on SIGTERM.
 */
import { createSvcProxy, type SvcProxyOptions } from '../../mod.ts';
import { bindAddress, isLoopbackBind } from '../../hosts/env.ts';
import { serveDeno } from '../../hosts/deno/server.ts';
import { serveWithDenoServe as serveOnDenoServe } from '../../hosts/deno_parallel/serve_handler.ts';
import { denoOutbound } from '../../hosts/deno/outbound.ts';
import { openWebSocketUpstream } from '../../src/ws/mod.ts';
import { appOperations } from '../sandbox/mod.ts';

/** The options SVC_BENCH_REGISTRY and SVC_BENCH_ALLOWED_BOT_IDS describe. */
export function runnerOptions(env: Record<string, string | undefined>): SvcProxyOptions {
  const options: SvcProxyOptions = {};
  if (env.SVC_BENCH_REGISTRY === 'app') {
    options.operations = appOperations().map((op) => op.query);
  }
  const bots = env.SVC_BENCH_ALLOWED_BOT_IDS?.trim();
  if (bots === 'any') options.allowedBotIds = 'any';
  else if (bots) options.allowedBotIds = bots.split(',').map((id) => id.trim());
  if (env.SVC_BENCH_UPSTREAM_LEG === 'web') options.upstreamSocket = openWebSocketUpstream;
  return options;
}

/** The server SVC_BENCH_DENO_SERVE picks: Deno.serve + the fetch handler, or node:http + `ws`. */
export function runnerServer(env: Record<string, string | undefined>): typeof serveDeno {
  return env.SVC_BENCH_DENO_SERVE === '1' ? serveOnDenoServe : serveDeno;
}

if (import.meta.main) {
  const env = Deno.env.toObject();
  const { host, port } = bindAddress(env);
  const proxy = createSvcProxy(
    { loopbackOnly: isLoopbackBind(host), ...denoOutbound(), ...runnerOptions(env) },
    env,
  );
  for (const line of proxy.startupLines) console.log(line);
  if (proxy.config.refusal) Deno.exit(1);
  const running = await runnerServer(env)(proxy, host, port);
  console.log(`svc-gateway listening on ${running.url}`);
  // The bench measures, then stops: exit at once, open keep-alive connections or not.
  Deno.addSignalListener('SIGTERM', () => Deno.exit(0));
}
