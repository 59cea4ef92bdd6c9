/**
 * `deno task serve:parallel [--workers N|auto]`: the Deno host's worker mode in one command, like
 * the Node host's `svc-gateway --workers`. Runs `deno serve --parallel` over parallel.ts with the
 * bind and worker count of the environment (process over ./.env): HOST (default 127.0.0.1), PORT
 * (default 8000), `--workers` or WORKERS (1..DEFAULTS.workersMax, or `auto`: one per core, the
 * default, or DENO_JOBS when set), and the server V8 flags (../v8_flags.ts).
 * SIGTERM and SIGINT are passed on; exits with the server's code. A usage error exits 2.
 */
import { parseArgs } from 'node:util';
import { DEFAULTS } from '../../src/host_api.ts';
import { bindAddress, loadEnv } from '../env.ts';
import { SERVER_V8_FLAGS } from '../v8_flags.ts';

const USAGE = 'usage: deno task serve:parallel [--workers N|auto]';

function workersOf(value: string | undefined): string | null {
  const given = value?.trim().toLowerCase();
  if (!given || given === 'auto') return null;
  if (!/^\d+$/.test(given) || Number(given) < 1 || Number(given) > DEFAULTS.workersMax) {
    console.error(`svc-gateway: --workers (or WORKERS) is a whole number or 'auto'\n${USAGE}`);
    Deno.exit(2);
  }
  return given;
}

const env = loadEnv(Deno.env.toObject());
const args = (() => {
  try {
    return parseArgs({ args: Deno.args, options: { workers: { type: 'string' } }, strict: true })
      .values;
  } catch (error) {
    console.error(`svc-gateway: ${(error as Error).message}\n${USAGE}`);
    Deno.exit(2);
  }
})();
const workers = workersOf(args.workers ?? env.WORKERS) ?? Deno.env.get('DENO_JOBS') ?? null;
const { host, port } = bindAddress(env);
const script = new URL('./parallel.ts', import.meta.url).pathname;
const child = new Deno.Command(Deno.execPath(), {
  args: [
    'serve',
    '--parallel',
    '--quiet',
    `--config=${new URL('../../deno.json', import.meta.url).pathname}`,
    '--allow-net',
    '--allow-env',
    '--allow-read',
    `--v8-flags=${SERVER_V8_FLAGS.join(',')}`,
    '--host',
    host,
    '--port',
    String(port),
    script,
  ],
  env: { HOST: host, ...(workers ? { DENO_JOBS: workers } : {}) },
  stdin: 'null',
}).spawn();
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  Deno.addSignalListener(signal, () => child.kill(signal));
}
Deno.exit((await child.status).code);
