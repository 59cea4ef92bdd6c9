/**
 * Runs a gateway host (or the sandbox) as its own process, for `deno task demo` and `deno task
 * bench`: the Deno host (`deno run hosts/deno/serve.ts`, or a bench runner script), or the Node
 * host from the built npm package (`node npm/bin/svc-gateway.js`). Reads the lines it prints
 * until its ready line (`svc-gateway listening on <url>`), keeps draining its output
 * afterwards, and stops it by pid with SIGTERM.
 */

/** The repository root (absolute, with a trailing slash). */
export const ROOT = new URL('../', import.meta.url).pathname;

/** The two host entry points a process can run. */
export type HostKind = 'deno' | 'node';

/**
 * `deno run` of a script under `root` (default: this checkout's root; another checkout's, ending
 * in '/', runs that tree's code), with that root's config and net/env/read access.
 */
export function denoRun(script: string, root = ROOT): string[] {
  return [
    Deno.execPath(),
    'run',
    '--quiet',
    `--config=${root}deno.json`,
    '--allow-net',
    '--allow-env',
    '--allow-read',
    `${root}${script}`,
  ];
}

/**
 * The command line of each host entry (the Deno one may name another script) in the checkout at
 * `root` (default this one; the Node host runs that checkout's built npm/).
 */
export function hostCommand(
  kind: HostKind,
  denoScript = 'hosts/deno/serve.ts',
  root = ROOT,
): string[] {
  if (kind === 'node') return ['node', `${root}npm/bin/svc-gateway.js`];
  return denoRun(denoScript, root);
}

/** A running child process that printed its address. */
export interface ChildProcess {
  /** The operating-system process id (the bench reads /proc/<pid>/stat). */
  pid: number;
  /** The address it printed, e.g. http://127.0.0.1:8787 */
  url: string;
  /** Every stdout line so far, the address line included. */
  lines: string[];
  /** Every stderr line so far. */
  errors: string[];
  /** SIGTERM, then waits for the exit (idempotent). */
  stop(): Promise<void>;
  /** Resolves with its exit status once it exited and its output was read to the end. */
  exited: Promise<Deno.CommandStatus>;
}

/** A running host process. */
export interface HostProcess extends ChildProcess {
  kind: HostKind;
}

/** How to start a child process. */
export interface ChildProcessOptions {
  /** Program and arguments. */
  command: string[];
  /**
   * Exactly the environment it gets, plus PATH, HOME, and the temp, cache, certificate and
   * registry locations of this process (PASSED_THROUGH); nothing else is inherited.
   */
  env: Record<string, string>;
  /** Working directory. Default: a fresh empty directory (removed on exit), so no `.env` is read. */
  cwd?: string;
  /** A stdout line matching this is the ready line; its first group is the `url`. */
  ready: RegExp;
}

/**
 * Starts a child and resolves once a stdout line matched `ready`. Throws (after the child exited)
 * when it stops before that; the error message carries its output.
 */
export async function startChildProcess(options: ChildProcessOptions): Promise<ChildProcess> {
  const [command, ...args] = options.command;
  const cwd = options.cwd ?? await Deno.makeTempDir({ prefix: 'svc-gateway-child-' });
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
  const ready = Promise.withResolvers<string | null>();
  const stdoutDone = collectLines(child.stdout, lines, (line) => {
    const match = line.match(options.ready);
    if (match) ready.resolve(match[1]);
  }).finally(() => ready.resolve(null));
  const exited = child.status.then(async (status) => {
    await Promise.allSettled([stdoutDone, stderrDone]);
    if (options.cwd === undefined) await Deno.remove(cwd, { recursive: true }).catch(() => {});
    return status;
  });
  const url = await ready.promise;
  if (url === null) {
    const status = await exited;
    throw new Error(
      `${options.command.join(' ')} exited (code ${status.code}) before it was ready:\n` +
        [...lines, ...errors].join('\n'),
    );
  }
  let stopping: Promise<void> | null = null;
  return {
    pid: child.pid,
    url,
    lines,
    errors,
    exited,
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

/** How to start a host process. */
export interface HostProcessOptions {
  /** Exactly the environment the host gets (see ChildProcessOptions.env). */
  env: Record<string, string>;
  /** Working directory (see ChildProcessOptions.cwd). */
  cwd?: string;
  /** For kind 'deno': the script to run, relative to the root (default hosts/deno/serve.ts). */
  denoScript?: string;
  /** Another checkout's root (ending in '/') whose host runs instead of this one's. */
  root?: string;
}

/** What serveTaskEnv read, once per process. */
let serveTaskEnvRead: Readonly<Record<string, string>> | null = null;

/**
 * The variables `deno task serve` sets before it starts the Deno host: the leading `NAME=value`
 * words of the `serve` task in deno.json (its allocator settings and V8 flags, docs/operations.md
 * "Memory"), so a Deno host started here runs as the task runs it.
 */
export function serveTaskEnv(): Record<string, string> {
  if (serveTaskEnvRead === null) {
    const config = JSON.parse(Deno.readTextFileSync(`${ROOT}deno.json`));
    const env: Record<string, string> = {};
    for (const word of String(config.tasks.serve).split(' ')) {
      const assignment = /^([A-Z_][A-Z0-9_]*)=(\S*)$/.exec(word);
      if (assignment === null) break;
      env[assignment[1]] = assignment[2];
    }
    serveTaskEnvRead = Object.freeze(env);
  }
  return { ...serveTaskEnvRead };
}

/**
 * Starts a host and resolves once it printed `listening on <url>` (SPEC "Startup behaviour and
 * hosts"). Throws when it exits before, e.g. REFUSING TO SERVE or a port already in use. The Deno
 * host gets what `deno task serve` sets (serveTaskEnv) under `options.env`.
 */
export async function startHostProcess(
  kind: HostKind,
  options: HostProcessOptions,
): Promise<HostProcess> {
  const child = await startChildProcess({
    command: hostCommand(kind, options.denoScript, options.root),
    env: kind === 'deno' ? { ...serveTaskEnv(), ...options.env } : options.env,
    cwd: options.cwd,
    ready: /listening on (http:\/\/\S+)/,
  });
  return { ...child, kind };
}

/**
 * What a child needs to find its tools, caches and the package registry, and nothing that
 * configures the gateway: PATH, HOME, temp and cache locations, certificate stores, registry.
 */
const PASSED_THROUGH = [
  'PATH',
  'HOME',
  'TMPDIR',
  'DENO_DIR',
  'XDG_CACHE_HOME',
  'DENO_CERT',
  'DENO_TLS_CA_STORE',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NODE_EXTRA_CA_CERTS',
  'NPM_CONFIG_REGISTRY',
];

function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of PASSED_THROUGH) {
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
