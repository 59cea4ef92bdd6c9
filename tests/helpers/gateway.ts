/**
 * Starts the gateway under test on either host: one suite, two hosts.
 * 'deno': the Deno host in this process (node:http and `ws` on Deno, `deno task serve`); 'node':
 * the emitted npm package under Node in a child process (tests/node/gateway_child.mjs). 'deno
 * serve': the Deno.serve handler of `deno task serve:parallel` in this process, for the tests of
 * what that handler does on its own.
 */
import { createSvcProxy, type Env, type SvcProxyOptions } from '../../mod.ts';
import { type DenoHost, serveDeno } from '../../hosts/deno/server.ts';
import { serveWithDenoServe } from '../../hosts/deno_parallel/serve_handler.ts';
import { denoOutbound } from '../../hosts/deno/outbound.ts';
import { startChildProcess } from '../../scripts/host_process.ts';

/** The two hosts every HTTP integration test runs on. */
export const HOSTS = ['deno', 'node'] as const;
export type HostKind = (typeof HOSTS)[number];

/**
 * The Deno.serve handler (hosts/deno_parallel/serve_handler.ts) that `deno task serve:parallel` runs in
 * each worker: run beside HOSTS by the tests of what it does on its own (the Host parse,
 * connections answered `connection: close`, upgrades it does not claim).
 */
export const DENO_SERVE = 'deno serve' as const;

/** Every kind of gateway a test can start. */
export type GatewayKind = HostKind | typeof DENO_SERVE;

/** A running gateway. */
export interface Gateway {
  kind: GatewayKind;
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  /** The startup lines it printed. */
  lines: string[];
  stop(): Promise<void>;
}

/** JSON-safe options (functions cannot cross to the Node child). */
export type TestOptions = Omit<SvcProxyOptions, 'fetch' | 'log'>;

/** Starts a gateway with `options` over `env` (no process environment is read). */
export function startGateway(
  kind: GatewayKind,
  options: TestOptions,
  env: Env,
): Promise<Gateway> {
  if (kind === 'node') return startNode(options, env);
  return startDeno(kind, options, env);
}

async function startDeno(kind: 'deno' | typeof DENO_SERVE, options: TestOptions, env: Env) {
  const lines: string[] = [];
  const proxy = createSvcProxy(
    { loopbackOnly: true, ...denoOutbound(), ...options, log: (l) => lines.push(l) },
    env,
  );
  lines.push(...proxy.startupLines);
  const serve = kind === 'deno' ? serveDeno : serveWithDenoServe;
  const host: DenoHost = await serve(proxy, '127.0.0.1', 0);
  return { kind, url: host.url, lines, stop: () => host.shutdown() };
}

const CHILD = new URL('../node/gateway_child.mjs', import.meta.url).pathname;

async function startNode(options: TestOptions, env: Env): Promise<Gateway> {
  const child = await startChildProcess({
    command: ['node', CHILD],
    env: { SVC_TEST_CONFIG: JSON.stringify({ options: { loopbackOnly: true, ...options }, env }) },
    ready: /^LISTENING (\S+)/,
  });
  return { kind: 'node', url: child.url, lines: child.lines, stop: () => child.stop() };
}
