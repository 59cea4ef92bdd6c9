/**
 * The dev server host: a Vite plugin. SPEC "Startup behaviour and hosts" (Dev
 * server host), "What the service does" 6.
 *
 * `configureServer` (and `configurePreviewServer`, so `vite preview` serves the same routes)
 * mounts the shared node handler before Vite's own middleware (a path under the gateway's prefix
 * it does not claim is the host's 404, never Vite's index.html fallback: SPEC "Endpoints"), and
 * listens for upgrades on the
 * dev server's http server for the relay path only (Vite's HMR socket is left to Vite).
 * Environment: the env files read with an empty prefix (`loadEnv(mode, envDir, '')`), the process
 * environment winning. Vite's allowed hosts join allowedHosts (`true` means '*'); a loopback bind
 * sets loopbackOnly. A refused configuration throws before mounting (the dev server does not
 * start, and the error says why); a configuration problem is logged, never fatal.
 *
 * Vite's types are described structurally here (the subset used), so the package needs no Vite at
 * build time; Vite itself is loaded from the app (`import('vite')`) for its `loadEnv`.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Buffer } from 'node:buffer';
import process from 'node:process';
import type { Duplex } from 'node:stream';
import { createSvcProxy, type Env, type SvcProxyOptions } from '../../src/host_api.ts';
import { isLoopbackBind } from '../env.ts';
import { isGatewayPath, pathOf } from '../node_http/gateway_paths.ts';
import { createNodeHandler } from '../node_http/handler.ts';
import { notFound, readEveryHeaderLine } from '../node_http/server.ts';
import { nodeOutbound } from '../node_http/outbound.ts';

/** The part of Vite's resolved config the plugin reads. */
export interface ViteConfigLike {
  mode: string;
  root: string;
  envDir?: string | false;
  server: { host?: string | boolean; allowedHosts?: string[] | true };
  preview?: { host?: string | boolean; allowedHosts?: string[] | true };
  logger: { info(message: string): void; warn(message: string): void };
}

/** The part of Vite's dev and preview servers the plugin uses. */
export interface ViteServerLike {
  config: ViteConfigLike;
  middlewares: {
    use(
      fn: (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void,
    ): unknown;
  };
  httpServer: Server | import('node:http2').Http2SecureServer | null;
}

/** The plugin object (assignable to Vite's Plugin). */
export interface SvcVitePlugin {
  name: 'svc-gateway';
  configureServer(server: ViteServerLike): Promise<void>;
  configurePreviewServer(server: ViteServerLike): Promise<void>;
}

type LoadEnv = (
  mode: string,
  envDir: string,
  prefixes: string | string[],
) => Record<string, string>;

/** Vite's own loadEnv, from the app's Vite (the plugin only runs inside Vite). */
async function viteLoadEnv(): Promise<LoadEnv> {
  const specifier = 'vite';
  const vite = await import(specifier) as { loadEnv: LoadEnv };
  return vite.loadEnv;
}

function hostList(value: readonly string[] | string | true | undefined): string[] | true {
  if (value === true) return true;
  if (value === undefined) return [];
  const list = typeof value === 'string' ? value.split(/[\s,]+/) : [...value];
  const names = list.map((h) => h.trim()).filter((h) => h !== '');
  return names.includes('*') ? true : names;
}

/** allowedHosts: the option (else ALLOWED_HOSTS) joined with Vite's own setting. */
export function joinAllowedHosts(
  given: readonly string[] | string | true | undefined,
  vite: string[] | true | undefined,
): string[] | true | undefined {
  const ours = hostList(given);
  const theirs = hostList(vite);
  if (ours === true || theirs === true) return true;
  const joined = [...new Set([...ours, ...theirs])];
  return joined.length > 0 ? joined : undefined;
}

/** Whether Vite binds loopback only (its default host is localhost; `true` is every address). */
export function viteBindsLoopback(host: string | boolean | undefined): boolean {
  if (host === undefined || host === false) return true;
  if (host === true) return false;
  return isLoopbackBind(host);
}

async function mount(
  server: ViteServerLike,
  options: SvcProxyOptions,
  side: 'server' | 'preview',
): Promise<void> {
  const config = server.config;
  const settings = side === 'preview' ? config.preview ?? config.server : config.server;
  const loadEnv = await viteLoadEnv();
  const env: Env = { ...loadEnv(config.mode, config.envDir || config.root, ''), ...process.env };
  const proxy = createSvcProxy({
    loopbackOnly: viteBindsLoopback(settings.host),
    ...options,
    ...nodeOutbound(options),
    allowedHosts: joinAllowedHosts(
      options.allowedHosts ?? env.ALLOWED_HOSTS,
      settings.allowedHosts,
    ),
  }, env);
  for (const line of proxy.startupLines) config.logger.info(line);
  if (proxy.config.refusal) {
    await proxy.close();
    throw new Error(`REFUSING TO SERVE: ${proxy.config.refusal}`);
  }
  const handler = createNodeHandler(proxy);
  // a gateway path the proxy did not claim (a route not mounted) is 404, never Vite's index.html
  const unclaimed = (req: IncomingMessage, res: ServerResponse, next: () => void) =>
    isGatewayPath(proxy.config, pathOf(req.url)) ? void notFound(req, res) : next();
  server.middlewares.use((req, res, next) =>
    void handler.handleRequest(req, res, () => unclaimed(req, res, next))
  );
  const http = server.httpServer as Server | null;
  // Vite's own server drops header lines past node's maxHeadersCount; the checks read them all
  if (http && 'maxHeadersCount' in http) readEveryHeaderLine(http);
  http?.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    handler.handleUpgrade(req, socket, head);
  });
  http?.on('close', () => void handler.close());
}

/**
 * The Vite plugin: `plugins: [svcGateway()]` in vite.config. `options` are the proxy's
 * (SPEC "Options"), e.g. `operations`; allowedHosts and loopbackOnly are joined as above.
 */
export function svcGateway(options: SvcProxyOptions = {}): SvcVitePlugin {
  return {
    name: 'svc-gateway',
    configureServer: (server) => mount(server, options, 'server'),
    configurePreviewServer: (server) => mount(server, options, 'preview'),
  };
}
