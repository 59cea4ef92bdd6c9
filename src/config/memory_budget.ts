/**
 * The process's memory budget: one number of bytes and where it came from (docs/operations.md
 * "Memory"; not a spec number).
 *
 * MEMORY_BUDGET_BYTES (option memoryBudgetBytes) when it is a positive number; otherwise a share
 * (`memoryBudgetCgroupShare`) of the container's memory limit where one is set (cgroup v2
 * `memory.max`, else v1 `memory/memory.limit_in_bytes`, under `/sys/fs/cgroup`); otherwise the
 * fixed `memoryBudgetBytes` of the defaults table. The cgroup files are read once, at startup.
 * `off` turns the accountant off (the benchmark's baseline).
 */
import { readFileSync } from 'node:fs';
import { DEFAULTS } from './defaults.ts';
import { ceiling, type NumberLike } from './parse.ts';

/** The resolved budget. */
export interface MemoryBudget {
  /**
   * Bytes the gateway may hold (see src/memory/accountant.ts for what is counted); null when
   * MEMORY_BUDGET_BYTES=off (nothing counted, refused or shed: for measuring the cost).
   */
  bytes: number | null;
  /** Where the number came from, as the startup line prints it. */
  source: string;
}

/** Where the container's limit is read: the cgroup mount and a file reader (tests pass their own). */
export interface CgroupSeam {
  /** The cgroup mount, default /sys/fs/cgroup. */
  root?: string;
  /** Reads a whole text file; throws when it is not there. */
  read?(path: string): string;
}

/** A limit at or past this many bytes is "no limit" (cgroup v1 writes 2^63 rounded to a page). */
const UNLIMITED_BYTES = 2 ** 60;

/** The cgroup files, in the order they are tried (v2 first). */
const CGROUP_FILES = [
  { file: 'memory.max', name: 'cgroup v2 memory.max' },
  { file: 'memory/memory.limit_in_bytes', name: 'cgroup v1 memory.limit_in_bytes' },
] as const;

/**
 * The container's memory limit in bytes and the file it came from, or null where none is set
 * (no file, 'max', a value meaning unlimited, or anything that is not a number).
 */
export function readCgroupLimit(seam: CgroupSeam = {}): { bytes: number; name: string } | null {
  const root = seam.root ?? '/sys/fs/cgroup';
  const read = seam.read ?? ((path: string) => readFileSync(path, 'utf8'));
  for (const { file, name } of CGROUP_FILES) {
    let raw: string;
    try {
      raw = read(`${root}/${file}`).trim();
    } catch {
      continue;
    }
    if (!/^\d+$/.test(raw)) continue; // 'max': no limit at this level
    const bytes = Number(raw);
    if (bytes > 0 && bytes < UNLIMITED_BYTES) return { bytes, name };
  }
  return null;
}

/** Resolves the budget: the given value, else a share of the cgroup limit, else the default. */
export function resolveMemoryBudget(
  given: NumberLike | undefined,
  seam: CgroupSeam = {},
): MemoryBudget {
  if (typeof given === 'string' && given.trim().toLowerCase() === 'off') {
    return { bytes: null, source: 'off' };
  }
  const explicit = ceiling(given, 0);
  if (explicit > 0) return { bytes: Math.floor(explicit), source: 'MEMORY_BUDGET_BYTES' };
  const limit = readCgroupLimit(seam);
  if (limit) {
    const share = DEFAULTS.memoryBudgetCgroupShare;
    return {
      bytes: Math.floor(limit.bytes * share),
      source: `${share * 100}% of the ${limit.name} limit (${limit.bytes} bytes)`,
    };
  }
  return { bytes: DEFAULTS.memoryBudgetBytes, source: 'default, no container limit found' };
}
