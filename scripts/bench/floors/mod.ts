/**
 * Floors: do-nothing servers on each runtime that the bench measures beside the gateway, so a
 * figure can be read against what any proxy on the same runtime and harness pays
 * (docs/benchmarks.md "The gateway's own cost"). `null_proxy.ts` (Deno) and `null_proxy_node.mjs`
 * (Node) for HTTP (scenario `targets`); for WebSockets (scenario `relay`) the relay floors with
 * each host's legs ({@link startHostLegsRelay}): `turn_relay.mjs` (node:http, `ws` both ends and
 * one write per turn toward the browser, as both hosts run) through `null_relay_turn.ts` on Deno
 * and `null_relay_turn_node.mjs` on Node. `null_relay_node.mjs` (`ws` writing each frame itself)
 * and `null_relay.ts` (Deno.upgradeWebSocket, the legs of the Deno.serve handler that `deno task
 * serve:parallel` runs) stay for scripts/bench/deno_legs.ts and deno_browser_legs.ts. Each runs as
 * its own process.
 */
import {
  type ChildProcess,
  denoRun,
  type HostKind,
  ROOT,
  serveTaskEnv,
  startChildProcess,
} from '../../host_process.ts';
import { SERVER_V8_FLAGS } from '../../../hosts/v8_flags.ts';

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
 * The Deno floor's upstream leg: `ws` the `ws` client (the Deno host's), `stream` Deno's
 * `WebSocketStream` (see null_relay.ts; compared in scripts/bench/deno_legs.ts). The Node floor
 * has `ws` only.
 */
export type RelayFloorLeg = 'ws' | 'stream';

/**
 * Starts a relay floor process from `command` toward `upstream` in `mode`; `env` adds to what
 * every relay floor reads (UPSTREAM, MODE, HOST, PORT). Resolves once it printed its address.
 */
function startRelayFloor(
  command: string[],
  upstream: string,
  mode: RelayFloorMode,
  env: Record<string, string> = {},
): Promise<ChildProcess> {
  return startChildProcess({
    command,
    env: { ...env, UPSTREAM: upstream, MODE: mode, HOST: '127.0.0.1', PORT: '0' },
    ready: /^null relay listening on (\S+)$/,
  });
}

/**
 * Starts the do-nothing WebSocket relay null_relay.ts (Deno: Deno.upgradeWebSocket toward the
 * browser, the upstream leg per `leg`) or null_relay_node.mjs (Node) to `upstream` (a ws URL with
 * its path), with the gateway's flow-control marks (see the floor scripts).
 */
export function startNullRelay(
  kind: HostKind,
  upstream: string,
  mode: RelayFloorMode = 'pass',
  leg: RelayFloorLeg = 'ws',
): Promise<ChildProcess> {
  const command = floorCommand(kind, 'null_relay');
  // WebSocketStream is unstable on Deno 2.9: the flag goes before the script
  if (kind === 'deno' && leg === 'stream') command.splice(-1, 0, '--unstable-net');
  return startRelayFloor(command, upstream, mode, { LEG: leg });
}

/** Runs the floor script `file` (under floors/, e.g. `null_relay_node.mjs`) on Deno. */
export function floorOnDeno(
  file: string,
  upstream: string,
  mode: RelayFloorMode,
): Promise<ChildProcess> {
  return startRelayFloor(denoRun(`scripts/bench/floors/${file}`), upstream, mode);
}

/**
 * Starts the relay floor with the legs of the host on `kind` (the relay scenario's floors):
 * turn_relay.mjs, node:http and a `ws` server toward the browser with one write per turn, the `ws`
 * client upstream, as both hosts run (hosts/deno/server.ts runs the Node server on Deno), through
 * its runtime's entry (null_relay_turn.ts on Deno, null_relay_turn_node.mjs on Node, which needs
 * the built npm package), with the runtime settings its host runs with (hosts/v8_flags.ts; on
 * Deno what `deno task serve` sets). `mode` as {@link RelayFloorMode}; `runtimeFlags` go to the
 * runtime before the script (e.g. `--cpu-prof`).
 */
export function startHostLegsRelay(
  kind: HostKind,
  upstream: string,
  mode: RelayFloorMode,
  runtimeFlags: string[] = [],
): Promise<ChildProcess> {
  const command = floorCommand(kind, 'null_relay_turn');
  // the runtime's settings as the host runs with them: Node's V8 flags (the bin sets them at
  // start), Deno's from `deno task serve` (its allocator and V8 flags)
  command.splice(-1, 0, ...(kind === 'node' ? SERVER_V8_FLAGS : []), ...runtimeFlags);
  return startRelayFloor(command, upstream, mode, kind === 'deno' ? serveTaskEnv() : {});
}
