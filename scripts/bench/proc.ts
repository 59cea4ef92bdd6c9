/**
 * Figures of another process from Linux's /proc: CPU time (/proc/<pid>/stat: utime + stime of
 * every thread, clock ticks converted to ms), read before and after a load run and divided by
 * the requests answered; and resident memory (/proc/<pid>/status VmRSS), the hook for a
 * memory-per-idle-socket scenario.
 */

let ticksPerSecond: number | null = null;

/** The kernel's clock ticks per second (`getconf CLK_TCK`; 100 when that cannot be asked). */
export async function clockTicksPerSecond(): Promise<number> {
  if (ticksPerSecond !== null) return ticksPerSecond;
  try {
    const out = await new Deno.Command('getconf', { args: ['CLK_TCK'], stdout: 'piped' }).output();
    const value = Number(new TextDecoder().decode(out.stdout).trim());
    ticksPerSecond = Number.isFinite(value) && value > 0 ? value : 100;
  } catch {
    ticksPerSecond = 100;
  }
  return ticksPerSecond;
}

/**
 * The user + system CPU time `pid` has used so far, in ms (resolution: one clock tick, 10 ms at
 * 100 ticks per second). Throws when the process is gone or /proc is not there.
 */
export async function cpuTimeMs(pid: number): Promise<number> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  // Field 2 (the command name) is in parentheses and may hold spaces: count after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state), so utime (field 14) is fields[11] and stime (15) fields[12].
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / await clockTicksPerSecond();
}

/** The resident set size of `pid` in bytes (VmRSS). Throws when the process is gone. */
export async function residentBytes(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const match = status.match(/^VmRSS:\s+(\d+)\s+kB$/m);
  if (!match) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

/** The child pids of `pid` (its main thread's children: a Node primary's workers), from /proc. */
export async function childPids(pid: number): Promise<number[]> {
  const text = await Deno.readTextFile(`/proc/${pid}/task/${pid}/children`).catch(() => '');
  return text.trim().split(/\s+/).filter((p) => p !== '').map(Number);
}
