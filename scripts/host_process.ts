/**
 * Runs a gateway host as its own process, for `deno task demo` and `deno task bench`: the Deno
 * host (`deno run hosts/deno/serve.ts`, or a bench runner script), or the Node host from the
 * built npm package (`node npm/bin/svc-gateway.js`). Reads the lines it prints until
 * `svc-gateway listening on <url>` (SPEC "Startup behaviour and hosts"), keeps draining its
 * output afterwards, and stops it by pid with SIGTERM.
 */

/** The repository root (absolute, with a trailing slash). */
export const ROOT = new URL('../', import.meta.url).pathname;

/** The two host entry points a process can run. */
export type HostKind = 'deno' | 'node';

/** The command line of each host entry (the Deno one may name another script). */
export function hostCommand(kind: HostKind, denoScript = 'hosts/deno/serve.ts'): string[] {
  if (kind === 'node') return ['node', `${ROOT}npm/bin/svc-gateway.js`];
  return [
    Deno.execPath(),
    'run',
    '--quiet',
    `--config=${ROOT}deno.json`,
    '--allow-net',
    '--allow-env',
    '--allow-read',
    `${ROOT}${denoScript}`,
  ];
}

/** A running host process. */
export interface HostProcess {
  kind: HostKind;
  /** The operating-system process id (the bench reads /proc/<pid>/stat). */
  pid: number;
  /** e.g. http://127.0.0.1:8787 */
  url: string;
  /** Every stdout line so far, the startup lines and the `listening on` line included. */
  lines: string[];
  /** Every stderr line so far. */
  errors: string[];
  /** SIGTERM, then waits for the exit (idempotent). */
  stop(): Promise<void>;
}

/** How to start a host process. */
export interface HostProcessOptions {
  /** Exactly the environment the host gets (PATH, HOME, DENO_DIR, XDG_CACHE_HOME are added; nothing else is inherited). */
  env: Record<string, string>;
  /** Working directory. Default: a fresh empty directory, so no developer `.env` is read. */
  cwd?: string;
  /** For kind 'deno': the script to run, relative to the root (default hosts/deno/serve.ts). */
  denoScript?: string;
}

/**
 * Starts a host and resolves once it printed `listening on <url>`. Throws (after the child
 * exited) when it stops before listening, e.g. REFUSING TO SERVE or a port already in use; the
 * error message carries its output.
 */
export async function startHostProcess(
  kind: HostKind,
  options: HostProcessOptions,
): Promise<HostProcess> {
  const [command, ...args] = hostCommand(kind, options.denoScript);
  const cwd = options.cwd ?? await Deno.makeTempDir({ prefix: 'svc-gateway-host-' });
  const child = new Deno.Command(command, {
    args,
    cwd,
    env: { ...baseEnv(), ...options.env },
    clearEnv: true,
    stdin: 'null',
    stdout: 'piped',
    stderr: 'piped',
  }).spawn();
  const lines: string[] = [];
  const errors: string[] = [];
  const stderrDone = collectLines(child.stderr, errors);
  const listening = Promise.withResolvers<string | null>();
  const stdoutDone = collectLines(child.stdout, lines, (line) => {
    const match = line.match(/listening on (http:\/\/\S+)/);
    if (match) listening.resolve(match[1]);
  }).finally(() => listening.resolve(null));
  const exited = child.status.then(async (status) => {
    await Promise.allSettled([stdoutDone, stderrDone]);
    if (options.cwd === undefined) await Deno.remove(cwd, { recursive: true }).catch(() => {});
    return status;
  });
  const url = await listening.promise;
  if (url === null) {
    const status = await exited;
    throw new Error(
      `${kind} host exited (code ${status.code}) before listening:\n` +
        [...lines, ...errors].join('\n'),
    );
  }
  let stopping: Promise<void> | null = null;
  return {
    kind,
    pid: child.pid,
    url,
    lines,
    errors,
    stop() {
      stopping ??= (async () => {
        try {
          child.kill('SIGTERM');
        } catch { /* already gone */ }
        await exited;
      })();
      return stopping;
    },
  };
}

/** What a child needs to find its tools and caches: PATH, HOME, and Deno's cache location. */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'DENO_DIR', 'XDG_CACHE_HOME']) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

async function collectLines(
  stream: ReadableStream<Uint8Array>,
  into: string[],
  onLine?: (line: string) => void,
): Promise<void> {
  let buffer = '';
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    for (const line of parts) {
      into.push(line);
      onLine?.(line);
    }
  }
  if (buffer !== '') {
    into.push(buffer);
    onLine?.(buffer);
  }
}

/** Whether `port` can be bound on 127.0.0.1 right now (probe: listen, then close). */
export function portIsFree(port: number): boolean {
  try {
    const listener = Deno.listen({ hostname: '127.0.0.1', port });
    listener.close();
    return true;
  } catch {
    return false;
  }
}
