/**
 * The `svc-gateway` bin: the Node server host (createSvcServer).
 *
 *   svc-gateway [--dist DIR] [--workers N|auto]
 *   svc-gateway --version      prints the package's version (./version.ts), exit 0
 *   svc-gateway --help         prints the usage (HELP), exit 0
 *   svc-gateway sandbox [--port N] [--hostname H]
 *                              the sandbox upstream, to develop against without a master token:
 *                              prints its URL, its test token and the gateway's two variables
 *                              (scripts/sandbox/program.ts, imported only by this subcommand)
 *
 * Environment: process environment over ./.env; HOST (default 127.0.0.1), PORT (default 8000),
 * BASE_PATH (mounts everything under a sub-path), WORKERS (as --workers). Static files from DIR,
 * default ./dist when it exists, else none. Prints the startup lines, then the address. A refused
 * configuration prints REFUSING TO SERVE and never binds (exit code 1). SIGTERM and SIGINT close
 * gracefully (in-flight requests finish, relay sockets close 1001), then exit 0; so does npx
 * going away when it started the bin, since it does not pass the signal on (./launcher.ts).
 * Outbound calls go through undici's EnvHttpProxyAgent (HTTPS_PROXY, HTTP_PROXY, NO_PROXY). SPEC
 * "Startup behaviour and hosts". With more than one worker (docs/operations.md "Limits across
 * processes"), cluster.ts runs them on one port: one startup report, every worker drained on
 * SIGTERM. Each process sets the server V8 flags first (../v8_flags.ts: allocation-site
 * pretenuring off).
 * No top-level await: scripts/build_binary.ts bundles this file into one CommonJS script (the
 * main of the single executable), which cannot hold one.
 */
import process from 'node:process';
import { parseArgs } from 'node:util';
import { loadEnv } from '../env.ts';
import {
  commandArguments,
  reportListening,
  runPrimary,
  workerCount,
  workerIndex,
} from './cluster.ts';
import { createWorkerMetrics } from './cluster_metrics.ts';
import { createSvcServer } from './svc_server.ts';
import { applyServerV8Flags } from '../v8_flags.ts';
import { PACKAGE_VERSION } from './version.ts';
import { whenLauncherGone } from './launcher.ts';
import { DEFAULTS } from '../../src/host_api.ts';

const USAGE = [
  'usage: svc-gateway [--dist DIR] [--workers N|auto] [--version] [--help]',
  '       svc-gateway sandbox [--port N] [--hostname H] [--help]',
].join('\n');

/** What `--help` prints: the usage, each flag, and the variables a first run needs. */
const HELP = [
  USAGE,
  '',
  'The Node server host of svc-gateway: health, the GraphQL proxy and relay, the upload routes,',
  "and the app's static build, on HOST:PORT (default 127.0.0.1:8000).",
  '',
  '  --dist DIR        serve the static build in DIR (default ./dist when it exists)',
  `  --workers N|auto  run N processes on one port, 1 to ${DEFAULTS.workersMax} (or WORKERS); auto: one per core`,
  "  --version         print the package's version",
  '  --help            print this text',
  '',
  "svc-gateway sandbox runs a sandbox upstream (a stand-in for the platform's API on a made-up",
  'account) and prints the SVC_API_BASE and SVC_TOKEN that point the gateway at it: to develop',
  'without a master token. svc-gateway sandbox --help says more.',
  '',
  'Variables (the process environment over ./.env): SVC_TOKEN (the master token, required),',
  'SVC_API_BASE (the upstream API base URL), HOST, PORT, BASE_PATH, ALLOWED_ORIGINS,',
  'ALLOWED_HOSTS; the package README lists the rest.',
].join('\n');

function readArguments(): { dist?: string; workers?: string; version?: boolean; help?: boolean } {
  try {
    const options = {
      dist: { type: 'string' },
      workers: { type: 'string' },
      version: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    } as const;
    return parseArgs({ args: commandArguments(), options, strict: true }).values;
  } catch (error) {
    console.error(`svc-gateway: ${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
}

/**
 * `svc-gateway sandbox`: the sandbox upstream's program, loaded here only (the server never loads
 * it). Its PORT and HOST stay the gateway's: the sandbox takes `--port` and `--hostname` only, and
 * its token is the fixed test value (SANDBOX_TOKEN of scripts/sandbox/server.ts).
 */
function sandbox(args: string[]): void {
  const sea = process.getBuiltinModule?.('node:sea') as { isSea(): boolean } | undefined;
  import('../../scripts/sandbox/program.ts').then((program) =>
    program.runSandboxProgram({
      name: 'svc-gateway sandbox',
      args,
      env: {},
      // the gateway is this same file when it is the single executable (build_binary.ts)
      gatewayCommand: sea?.isSea() ? process.execPath : 'npx svc-gateway',
    })
  ).catch((error: Error) => {
    console.error(`svc-gateway sandbox: ${error.message}`);
    process.exit(1);
  });
}

/** The bin: the arguments, then the sandbox, or the primary of a cluster or one server process. */
function main(): void {
  const [command, ...rest] = commandArguments();
  if (command === 'sandbox') return sandbox(rest);
  applyServerV8Flags();
  const args = readArguments();
  if (args.help) return console.log(HELP);
  if (args.version) return console.log(PACKAGE_VERSION);
  const env = loadEnv(process.env);
  const workers = workerCount(args.workers ?? env.WORKERS);
  if (workers === null) {
    console.error(
      `svc-gateway: --workers (or WORKERS) is a whole number from 1 to ${DEFAULTS.workersMax}, or 'auto'\n${USAGE}`,
    );
    process.exit(2);
  }
  const index = workerIndex();
  if (workers > 1 && index === null) runPrimary(workers);
  else {
    serve(args.dist, index, workers).catch((error: Error) => {
      console.error(`svc-gateway: ${error.message}`);
      process.exit(1);
    });
  }
}

/** One server process (alone, or worker `index` of `workers`: only worker 0 prints). */
async function serve(dist: string | undefined, index: number | null, workers: number) {
  const quiet = index !== null && index > 0;
  const log = quiet ? () => {} : (line: string) => console.log(line);
  const metrics = index === null ? null : createWorkerMetrics(index, workers);
  const options = metrics ? { metricsDeployment: metrics.deployment } : undefined;
  const svc = (() => {
    try {
      return createSvcServer({ distDir: dist, log, options });
    } catch (error) {
      if (!quiet) console.error(`svc-gateway: ${(error as Error).message}`);
      process.exit(1);
    }
  })();
  if (svc.proxy.config.refusal) process.exit(1);
  metrics?.answer(() => svc.proxy.metricsText());
  if (workers > 1 && !svc.proxy.config.sharedLimits) {
    log(
      `WARNING: ${workers} workers with per-process tenant limits: a tenant gets ${workers} times its minute and sockets (set BACKEND_SERVICE_ROLE_KEY to share them)`,
    );
  }
  const { url } = await svc.listen().catch((error: Error) => {
    console.error(`svc-gateway: ${error.message}`);
    process.exit(1);
  });
  if (svc.distDir) log(`svc-gateway: static files from ${svc.distDir}`);
  if (index === null) console.log(`svc-gateway listening on ${url}`);
  else reportListening(url);
  let closing = false;
  const close = () => {
    if (closing) return;
    closing = true;
    void svc.close().then(() => process.exit(0));
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, close);
  // a worker's launcher is the primary, which drains it; a process alone watches npx's
  if (index === null) whenLauncherGone(process.env, close);
}

main();
