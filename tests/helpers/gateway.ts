/**
 * Starts the gateway under test on either host: one suite, two hosts.
 * 'deno': the Deno host in this process (Deno.serve); 'node': the emitted npm
 * package under Node in a child process (tests/node/gateway_child.mjs).
 */
import { createSvcProxy, type Env, type SvcProxyOptions } from '../../mod.ts';
import { serveDeno } from '../../hosts/deno/server.ts';
import { denoOutbound } from '../../hosts/deno/outbound.ts';
import { startChildProcess } from '../../scripts/host_process.ts';

/** The two hosts every HTTP integration test runs on. */
export const HOSTS = ['deno', 'node'] as const;
export type HostKind = (typeof HOSTS)[number];

/** A running gateway. */
export interface Gateway {
  kind: HostKind;
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  /** The startup lines it printed. */
  lines: string[];
  stop(): Promise<void>;
}

/** JSON-safe options (functions cannot cross to the Node child). */
export type TestOptions = Omit<SvcProxyOptions, 'fetch' | 'log'>;

/** Starts a gateway with `options` over `env` (no process environment is read). */
export function startGateway(kind: HostKind, options: TestOptions, env: Env): Promise<Gateway> {
  return kind === 'deno' ? startDeno(options, env) : startNode(options, env);
}

async function startDeno(options: TestOptions, env: Env): Promise<Gateway> {
  const lines: string[] = [];
  const proxy = createSvcProxy(
    { loopbackOnly: true, ...denoOutbound(), ...options, log: (l) => lines.push(l) },
    env,
  );
  lines.push(...proxy.startupLines);
  const host = await serveDeno(proxy, '127.0.0.1', 0);
  return { kind: 'deno', url: host.url, lines, stop: () => host.shutdown() };
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
