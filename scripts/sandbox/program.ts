/**
 * The sandbox upstream as a program, run two ways: `deno task sandbox` (main.ts, for contributors:
 * the tests' tools, the bench) and `svc-gateway sandbox` (the npm package's bin,
 * hosts/node/main.ts: an app developer without a master token develops against it).
 *
 *   <name> [--port N] [--hostname H] [--help]
 *
 * Port: `--port`, else PORT when the caller passes its environment, else SANDBOX_PORT (0: a free
 * port). Hostname: `--hostname`, else HOST (same), else 127.0.0.1. Token: SANDBOX_TOKEN
 * (same), else the fixed SANDBOX_TOKEN of server.ts. Subscription streams (switch `stream`, which
 * a separate process cannot flip at run time): SANDBOX_STREAM_COUNT events, one every
 * SANDBOX_STREAM_TICK_MS ms (integers >= 0; same). Prints what describeSandbox returns on stdout,
 * its URL alone on the first line; stops on SIGINT/SIGTERM (exit 0). A bad flag or value: the
 * reason and the usage on stderr, exit 2; a port it cannot listen on: the reason, exit 1.
 */
import process from 'node:process';
import { parseArgs } from 'node:util';
import { type Sandbox, startSandbox } from './server.ts';
import { WORLD_IDS } from './world.ts';

/** How one entry point runs the program. */
export interface SandboxProgram {
  /** The command as a user types it, for the usage line (e.g. 'svc-gateway sandbox'). */
  name: string;
  /** The arguments after the command. */
  args: string[];
  /**
   * Variables read (PORT, HOST, SANDBOX_TOKEN, SANDBOX_STREAM_COUNT, SANDBOX_STREAM_TICK_MS):
   * `deno task sandbox` passes its environment; the bin passes none (PORT and HOST are the
   * gateway's own variables there).
   */
  env: Record<string, string | undefined>;
  /** The gateway's command printed after the variables, e.g. 'npx svc-gateway'. */
  gatewayCommand: string;
}

/**
 * The port when neither `--port` nor PORT names one: fixed, so the gateway's SVC_API_BASE written
 * once into its `.env` (http://127.0.0.1:8100) stays right across restarts; beside the gateway's
 * own default port, 8000.
 */
export const SANDBOX_PORT = 8100;

/** The flags, each `--name value` or `--name=value` (node:util parseArgs). */
const OPTIONS = {
  port: { type: 'string' },
  hostname: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function usage(name: string): string {
  return `usage: ${name} [--port N] [--hostname H] [--help]`;
}

/** What `--help` prints. */
function help(program: SandboxProgram): string {
  return [
    usage(program.name),
    '',
    "A sandbox upstream: a local stand-in for the bot platform's API (GraphQL over HTTP and",
    'WebSocket, the upload paths) on a small made-up account, to run the gateway against without',
    'a master token. It prints its URL, its token, and the variables to set for the gateway.',
    '',
    `  --port N      listen on port N (default ${SANDBOX_PORT}; 0: any free port)`,
    '  --hostname H  listen on address H (default 127.0.0.1)',
    '  --help        print this text',
  ].join('\n');
}

/**
 * The lines the program prints once listening: the URL alone (first line: scripts wait for it),
 * the endpoints, the token (a fixed test value, said so), the account's bots, and the two
 * variables for the gateway, as `.env` lines and as one command with `gatewayCommand`.
 */
export function describeSandbox(sandbox: Sandbox, gatewayCommand: string): string[] {
  const bots = sandbox.world.workspaces.map((workspace) =>
    `${sandbox.world.botsOf(workspace.id).map((bot) => bot.id).join(', ')} (${workspace.title})`
  );
  const variables = `SVC_API_BASE=${sandbox.url} SVC_TOKEN=${sandbox.token}`;
  return [
    sandbox.url,
    `sandbox upstream: GraphQL POST ${sandbox.url}/graphql, socket ${sandbox.wsUrl}, uploads ${sandbox.url}/api/filestorage/upload/<kind>`,
    `token: ${sandbox.token}`,
    "  (the sandbox's own test token: it opens this sandbox only and is no master token of the platform)",
    `account: user ${WORLD_IDS.user}; bots ${bots.join('; ')}`,
    'Set these two variables for the gateway (in its .env, or before its command):',
    `SVC_API_BASE=${sandbox.url}`,
    `SVC_TOKEN=${sandbox.token}`,
    `  e.g. ${variables} ${gatewayCommand}`,
    'Stop the sandbox with Ctrl-C.',
  ];
}

/** Exits 2 with `reason` and the usage. */
function refuse(name: string, reason: string): never {
  console.error(`${name}: ${reason}\n${usage(name)}`);
  process.exit(2);
}

/** A whole number from `min` to `max` out of `raw`, or a refusal naming `what`. */
function whole(name: string, what: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (raw.trim() !== '' && Number.isInteger(value) && value >= min && value <= max) return value;
  return refuse(name, `${what} is a whole number from ${min} to ${max} (got '${raw}')`);
}

/** The settings out of the flags and variables; exits 2 on a bad one, 0 after `--help`. */
function settings(program: SandboxProgram) {
  const { name, env } = program;
  let values: { port?: string; hostname?: string; help?: boolean };
  try {
    values = parseArgs({ args: program.args, options: OPTIONS, strict: true }).values;
  } catch (error) {
    return refuse(name, (error as Error).message);
  }
  if (values.help) {
    console.log(help(program));
    process.exit(0);
  }
  const port = values.port ?? env.PORT;
  const count = env.SANDBOX_STREAM_COUNT;
  const tick = env.SANDBOX_STREAM_TICK_MS;
  const max = Number.MAX_SAFE_INTEGER;
  return {
    port: port === undefined ? SANDBOX_PORT : whole(name, '--port', port, 0, 65535),
    hostname: values.hostname ?? env.HOST ?? '127.0.0.1',
    token: env.SANDBOX_TOKEN || undefined,
    count: count ? whole(name, 'SANDBOX_STREAM_COUNT', count, 0, max) : undefined,
    tickMs: tick ? whole(name, 'SANDBOX_STREAM_TICK_MS', tick, 0, max) : undefined,
  };
}

/** Runs the program: listens, prints describeSandbox's lines, stops on SIGINT or SIGTERM. */
export async function runSandboxProgram(program: SandboxProgram): Promise<void> {
  const { port, hostname, token, count, tickMs } = settings(program);
  let sandbox: Sandbox;
  try {
    sandbox = await startSandbox({ port, hostname, token });
  } catch (error) {
    const { code, syscall, message } = error as {
      code?: string;
      syscall?: string;
      message: string;
    };
    if (syscall !== 'listen') console.error(`${program.name}: ${message}`);
    else {
      const hint = code === 'EADDRINUSE' ? ': pass --port N, or --port 0 for any free port' : '';
      console.error(`${program.name}: cannot listen on ${hostname}:${port}${hint} (${code})`);
    }
    process.exit(1);
  }
  const stream = sandbox.switches.stream;
  sandbox.switches.stream = {
    ...stream,
    count: count ?? stream.count,
    tickMs: tickMs ?? stream.tickMs,
  };
  console.log(describeSandbox(sandbox, program.gatewayCommand).join('\n'));
  const stop = () => void sandbox.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
