/**
 * `deno task sandbox`: runs the sandbox upstream as a program and prints its URL.
 *
 * Port: `--port <n>` (or `--port=<n>`), else the PORT environment variable, else 0 (a free port).
 * Hostname: `--hostname <h>`, else HOST, else 127.0.0.1. Token: SANDBOX_TOKEN env, else the
 * default `SANDBOX_TOKEN` of mod.ts (never printed). Subscription streams (switch `stream`, which a
 * separate process cannot flip at run time): SANDBOX_STREAM_COUNT events (integer >= 0), one every
 * SANDBOX_STREAM_TICK_MS ms (integer >= 0); each defaults to the switch's default. Stops on
 * SIGINT/SIGTERM.
 */
import process from 'node:process';
import { startSandbox } from './mod.ts';

function flag(name: string): string | undefined {
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    if (args[i] === `--${name}`) return args[i + 1];
    if (args[i].startsWith(`--${name}=`)) return args[i].slice(name.length + 3);
  }
  return undefined;
}

const port = Number(flag('port') ?? process.env.PORT ?? 0);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`sandbox: invalid port ${flag('port') ?? process.env.PORT}`);
  process.exit(2);
}
/** A non-negative integer from the environment, or undefined when unset; exits 2 when invalid. */
function envCount(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (Number.isInteger(value) && value >= 0) return value;
  console.error(`sandbox: invalid ${name} ${raw}`);
  process.exit(2);
}
const streamCount = envCount('SANDBOX_STREAM_COUNT');
const streamTickMs = envCount('SANDBOX_STREAM_TICK_MS');

const sandbox = await startSandbox({
  port,
  hostname: flag('hostname') ?? process.env.HOST ?? '127.0.0.1',
  token: process.env.SANDBOX_TOKEN || undefined,
});
sandbox.switches.stream = {
  ...sandbox.switches.stream,
  ...(streamCount === undefined ? {} : { count: streamCount }),
  ...(streamTickMs === undefined ? {} : { tickMs: streamTickMs }),
};
console.log(sandbox.url);
console.error(`sandbox upstream: graphql ${sandbox.url}/graphql, socket ${sandbox.wsUrl}`);

const stop = async () => {
  await sandbox.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
