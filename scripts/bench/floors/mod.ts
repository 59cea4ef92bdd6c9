/**
 * Floors: do-nothing servers on each runtime that the bench measures beside the gateway, so a
 * figure can be read against what any proxy on the same runtime and harness pays
 * (docs/benchmarks.md "The gateway's own cost"). `null_proxy.ts` (Deno) and `null_proxy_node.mjs`
 * (Node) for HTTP (scenario `targets`), `null_relay.ts` and `null_relay_node.mjs` for WebSockets
 * (scenario `relay`). Each runs as its own process.
 */
import {
  type ChildProcess,
  denoRun,
  type HostKind,
  ROOT,
  startChildProcess,
} from '../../host_process.ts';

/** The command that runs the floor `name` (without extension) on `kind`. */
function floorCommand(kind: HostKind, name: string): string[] {
  if (kind === 'node') return ['node', `${ROOT}scripts/bench/floors/${name}_node.mjs`];
  return denoRun(`scripts/bench/floors/${name}.ts`);
}

/** Starts the do-nothing HTTP proxy on `kind` in front of `upstream` (http URL), injecting `token`. */
export function startNullProxy(
  kind: HostKind,
  upstream: string,
  token: string,
): Promise<ChildProcess> {
  return startChildProcess({
    command: floorCommand(kind, 'null_proxy'),
    env: { UPSTREAM: upstream, TOKEN: token, HOST: '127.0.0.1', PORT: '0' },
    ready: /^null proxy listening on (\S+)$/,
  });
}

/**
 * What a relay floor does to each frame: `pass` passes it across as it came, `plain` parses and
 * re-serialises it the plain way (`JSON.stringify(JSON.parse(text))`) and nothing else.
 */
export type RelayFloorMode = 'pass' | 'plain';

/**
 * Starts the do-nothing WebSocket relay on `kind` to `upstream` (a ws URL with its path); both
 * floors have the host's legs and its flow-control marks (see the floor scripts).
 */
export function startNullRelay(
  kind: HostKind,
  upstream: string,
  mode: RelayFloorMode = 'pass',
): Promise<ChildProcess> {
  return startChildProcess({
    command: floorCommand(kind, 'null_relay'),
    env: { UPSTREAM: upstream, MODE: mode, HOST: '127.0.0.1', PORT: '0' },
    ready: /^null relay listening on (\S+)$/,
  });
}
