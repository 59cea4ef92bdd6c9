/**
 * createSvcServer: the Node server host as a user mounts it (SPEC "What the
 * service does" 6, "Startup behaviour and hosts", Node server): health, then the
 * proxy, then the app's static build, under an optional BASE_PATH; a path under the
 * gateway's prefix that the proxy did not claim (a route not mounted, SPEC
 * "Endpoints") is 404 and never the static build's index.html; upgrades on
 * the relay path go to the relay, any other upgrade is destroyed; close() is
 * graceful (in-flight requests finish, relay sockets close 1001).
 */
import { existsSync } from 'node:fs';
import { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Buffer } from 'node:buffer';
import { resolve } from 'node:path';
import process from 'node:process';
import type { Duplex } from 'node:stream';
import {
  createSvcProxy,
  DEFAULTS,
  type Env,
  type SvcProxy,
  type SvcProxyOptions,
} from '../../src/host_api.ts';
import { bindAddress, isLoopbackBind, listenUrl, loadEnv } from '../env.ts';
import { enterBasePath, normaliseBasePath } from './base_path.ts';
import { isGatewayPath, pathOf } from '../node_http/gateway_paths.ts';
import { createNodeHandler } from '../node_http/handler.ts';
import { nodeOutbound } from '../node_http/outbound.ts';
import { createHostServer, listenOn, notFound } from '../node_http/server.ts';
import { createStaticHandler } from './static.ts';

/** What createSvcServer takes; every field is optional. */
export interface SvcServerOptions {
  /**
   * The app's build directory. Default: `./dist` (of the working directory) when it exists,
   * else no static serving (unclaimed paths are 404). `false`: no static serving.
   */
  distDir?: string | false;
  /** The environment bag. Default: `.env` of the working directory under `process.env`. */
  env?: Env;
  /** Proxy options (SPEC "Options"); `loopbackOnly` defaults to whether `host` is loopback. */
  options?: SvcProxyOptions;
  /** Bind address. Default: env HOST, else 127.0.0.1. */
  host?: string;
  /** Port. Default: env PORT, else 8000; 0 picks a free port. */
  port?: number;
  /** Mount everything under this sub-path. Default: env BASE_PATH, else none. */
  basePath?: string;
  /** Where the startup lines go. Default: console.log. */
  log?: (line: string) => void;
}

/** A built (not yet listening) Node server. */
export interface SvcServer {
  server: Server;
  proxy: SvcProxy;
  /** The static directory served (absolute), or null. */
  distDir: string | null;
  /** The normalised base path ('' for none). */
  basePath: string;
  /**
   * Binds host:port. Rejects with the REFUSING TO SERVE line (never binding) when the
   * configuration is refused. Resolves with the address, e.g. http://127.0.0.1:8000/app.
   */
  listen(): Promise<{ url: string; port: number }>;
  /**
   * Graceful stop: no new connections, relay sockets closed 1001, in-flight requests finish;
   * connections still open after DEFAULTS.shutdownGraceMs are cut.
   */
  close(): Promise<void>;
}

function defaultDist(given: string | false | undefined): string | null {
  if (given === false) return null;
  if (given !== undefined) {
    if (!existsSync(resolve(given))) throw new Error(`the dist directory ${given} does not exist`);
    return resolve(given);
  }
  const dist = resolve('dist');
  return existsSync(dist) ? dist : null;
}

/**
 * Builds the Node server host; prints the startup lines (problems, configuration, refusal).
 * Throws for a `distDir` that does not exist and for a malformed BASE_PATH.
 */
export function createSvcServer(init: SvcServerOptions = {}): SvcServer {
  const env = init.env ?? loadEnv(process.env);
  const bind = bindAddress(env);
  const host = init.host ?? bind.host;
  const port = init.port ?? bind.port;
  const basePath = normaliseBasePath(init.basePath ?? env.BASE_PATH);
  const log = init.log ?? ((line: string) => console.log(line));
  const proxy = createSvcProxy({
    loopbackOnly: isLoopbackBind(host),
    ...init.options,
    ...nodeOutbound(init.options),
  }, env);
  for (const line of proxy.startupLines) log(line);
  const distDir = defaultDist(init.distDir);
  const handler = createNodeHandler(proxy);
  const serveStatic = distDir ? createStaticHandler(distDir) : notFound;
  // a gateway path the proxy did not claim (a route not mounted) is 404, never index.html
  const unclaimed = (req: IncomingMessage, res: ServerResponse) =>
    isGatewayPath(proxy.config, pathOf(req.url)) ? notFound(req, res) : serveStatic(req, res);

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (!enterBasePath(req, basePath)) return void notFound(req, res);
    void handler.handleRequest(req, res, () => void unclaimed(req, res));
  };
  const server = createHostServer(onRequest);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!enterBasePath(req, basePath) || !handler.handleUpgrade(req, socket, head)) {
      socket.destroy();
    }
  });

  let closing: Promise<void> | null = null;
  return {
    server,
    proxy,
    distDir,
    basePath,
    listen() {
      if (proxy.config.refusal) {
        return Promise.reject(new Error(`REFUSING TO SERVE: ${proxy.config.refusal}`));
      }
      return listenOn(server, host, port).then((bound) => ({
        url: `${listenUrl(host, bound)}${basePath}`,
        port: bound,
      }));
    },
    close() {
      closing ??= new Promise<void>((done) => {
        const cut = setTimeout(() => server.closeAllConnections(), DEFAULTS.shutdownGraceMs);
        server.close(() => {
          clearTimeout(cut);
          done();
        });
        server.closeIdleConnections();
        void handler.close();
      });
      return closing;
    },
  };
}
