/**
 * `deno task sandbox`: the sandbox upstream as a program (program.ts: flags, variables, what it
 * prints). Reads PORT, HOST, SANDBOX_TOKEN, SANDBOX_STREAM_COUNT and SANDBOX_STREAM_TICK_MS from
 * the environment; prints its URL alone on the first line of stdout, then its token and the
 * gateway's variables. Stops on SIGINT/SIGTERM. The npm package's bin runs the same program as
 * `svc-gateway sandbox` (hosts/node/main.ts).
 */
import process from 'node:process';
import { runSandboxProgram } from './program.ts';

await runSandboxProgram({
  name: 'deno task sandbox',
  args: process.argv.slice(2),
  env: process.env,
  gatewayCommand: 'deno task serve',
});
