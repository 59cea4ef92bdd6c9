/**
 * The Deno host under `deno serve --parallel` (docs/operations.md "Limits across processes"): one
 * worker per core (or DENO_JOBS), each an isolate with its own proxy, all on one port (the runtime
 * spreads connections over them). `deno serve` takes a fetch handler, so each worker serves the
 * Deno.serve handler (serve_handler.ts `denoHandler`; `deno task serve` runs node:http and `ws`
 * instead, server.ts): health, host and origin checks, the GraphQL route and the WebSocket relay
 * (Deno.upgradeWebSocket), with Deno.serve's limits (docs/known-limits.md).
 *
 *   deno task serve:parallel [--workers N|auto]      (parallel_run.ts: HOST, PORT, WORKERS)
 *
 * - Bind: `deno serve` takes --host/--port (default 0.0.0.0:8000; the task passes HOST and PORT);
 *   HOST (default 127.0.0.1) tells the configuration whether the bind is loopback, as
 *   `deno task serve` does. A bind that is not loopback while HOST said it was is refused
 *   (REFUSING TO SERVE, exit 1): open mode must never be served past loopback by mistake.
 * - One startup report: the runtime calls `onListen` in one worker only; that worker prints the
 *   startup lines and `svc-gateway listening on <url> (N workers)`. A refused configuration is
 *   printed by the workers that load before the process exits 1.
 * - SIGTERM: the runtime stops accepting and lets in-flight requests finish; each worker closes
 *   its proxy (relay sockets 1001, shared socket counts given back).
 * - Metrics: a scrape of any worker answers for the whole process (parallel_metrics.ts).
 * - The workers are threads of one process: tenant limits hold across them, and across
 *   processes, only through the backend (src/shared_limits/).
 */
import { createSvcProxy, isLoopbackName } from '../../src/host_api.ts';
import { bindAddress, isLoopbackBind, listenUrl, loadEnv } from '../env.ts';
import { denoOutbound } from '../deno/outbound.ts';
import { createIsolateMetrics } from './parallel_metrics.ts';
import { denoHandler } from './serve_handler.ts';

const env = loadEnv(Deno.env.toObject());
const loopbackOnly = isLoopbackBind(bindAddress(env).host);
/** The workers `deno serve --parallel` runs: DENO_JOBS, else one per core. */
const workers = Number(Deno.env.get('DENO_JOBS')) || navigator.hardwareConcurrency;
const metrics = createIsolateMetrics(workers, () => proxy.metricsText());
const proxy = createSvcProxy(
  { loopbackOnly, ...denoOutbound(), metricsDeployment: metrics.deployment },
  env,
);
if (proxy.config.refusal) {
  for (const line of proxy.startupLines) console.log(line);
  Deno.exit(1);
}
Deno.addSignalListener('SIGTERM', () => {
  metrics.close();
  void proxy.close();
});

export default {
  fetch: denoHandler(proxy),
  onListen(addr: Deno.Addr) {
    const { hostname, port } = addr as Deno.NetAddr;
    if (loopbackOnly && !isLoopbackName(hostname.includes(':') ? `[${hostname}]` : hostname)) {
      console.log(
        `REFUSING TO SERVE: bound on ${hostname} while HOST names a loopback address; set HOST to the --host given`,
      );
      Deno.exit(1);
    }
    for (const line of proxy.startupLines) console.log(line);
    console.log(`svc-gateway listening on ${listenUrl(hostname, port)} (${workers} workers)`);
  },
} satisfies Deno.ServeDefaultExport;
