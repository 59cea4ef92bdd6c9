/**
 * `deno task bench --pin`: each side of a comparison on a CPU of its own, so that what one
 * gateway costs more than another is not drowned by the scheduler moving three busy processes
 * over two shared cores (the checks and gate on/off pairs; docs/benchmarks.md "The checks, the
 * session gate and metrics (paired slices)").
 *
 * With pinning, the bench process (load generator, in-process fixtures) and everything it starts
 * afterwards (sandbox, fixed-answer upstream, PostgreSQL) run on {@link LOAD_CPU}; every measured
 * server the scenarios start (gateways, nginx) is moved to the last CPU of the machine. Uses
 * util-linux's `taskset` on every thread of a process (`-a`); threads made later inherit it.
 * Linux only; needs at least two CPUs.
 */

/** The CPU the bench process and its fixtures run on under --pin. */
export const LOAD_CPU = 0;

/** The CPU measured servers run on under --pin: the machine's last. */
export function serverCpu(): number {
  return navigator.hardwareConcurrency - 1;
}

/** Why pinning cannot be done on this machine, or null when it can. */
export async function pinUnavailable(): Promise<string | null> {
  if (Deno.build.os !== 'linux') return `pinning needs Linux (this is ${Deno.build.os})`;
  if (navigator.hardwareConcurrency < 2) return 'pinning needs at least two CPUs';
  try {
    const out = await new Deno.Command('taskset', { args: ['--version'], stdout: 'null' }).output();
    return out.success ? null : 'taskset --version failed';
  } catch {
    return 'no taskset binary (util-linux)';
  }
}

/**
 * Sets the CPU affinity of every thread of `pid` to the single CPU `cpu`, and reads it back.
 * Throws when it fails (no such process, CPU out of range), with taskset's or /proc's message.
 */
export async function pinProcess(pid: number, cpu: number): Promise<void> {
  const out = await new Deno.Command('taskset', {
    args: ['-a', '-p', '-c', String(cpu), String(pid)],
    stdout: 'null',
    stderr: 'piped',
  }).output();
  const message = new TextDecoder().decode(out.stderr).trim();
  // `taskset -a` exits 0 for a process that is not there: read the affinity back
  const now = out.success ? await allowedCpus(pid).catch((e) => `${e.message}`) : message;
  if (now !== String(cpu)) throw new Error(`taskset could not pin ${pid} to CPU ${cpu}: ${now}`);
}

/** The CPUs `pid`'s main thread may run on, as /proc/<pid>/status lists them (e.g. "0-1", "1"). */
export async function allowedCpus(pid: number): Promise<string> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const match = status.match(/^Cpus_allowed_list:\s+(\S+)$/m);
  if (!match) throw new Error(`no Cpus_allowed_list in /proc/${pid}/status`);
  return match[1];
}
