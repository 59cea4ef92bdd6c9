/**
 * Floors: do-nothing servers on the Deno runtime that the bench measures beside the gateway, so
 * a figure can be read against what any proxy on the same runtime and harness pays (issue 13).
 * `null_proxy.ts` for HTTP (scenario `targets`), `null_relay.ts` for WebSockets (scenario
 * `relay`). Each runs as its own process.
 */
import { type ChildProcess, denoRun, startChildProcess } from '../../host_process.ts';

/** Starts the do-nothing HTTP proxy in front of `upstream` (http URL), injecting `token`. */
export function startNullProxy(upstream: string, token: string): Promise<ChildProcess> {
  return startChildProcess({
    command: denoRun('scripts/bench/floors/null_proxy.ts'),
    env: { UPSTREAM: upstream, TOKEN: token, HOST: '127.0.0.1', PORT: '0' },
    ready: /^null proxy listening on (\S+)$/,
  });
}

/** Starts the do-nothing WebSocket relay to `upstream` (a ws URL with its path). */
export function startNullRelay(upstream: string): Promise<ChildProcess> {
  return startChildProcess({
    command: denoRun('scripts/bench/floors/null_relay.ts'),
    env: { UPSTREAM: upstream, HOST: '127.0.0.1', PORT: '0' },
    ready: /^null relay listening on (\S+)$/,
  });
}
