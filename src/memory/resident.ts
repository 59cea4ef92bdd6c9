/**
 * The process's resident memory, the accountant's second signal (docs/operations.md "Memory"):
 * `process.memoryUsage.rss()` of `node:process`, which both runtimes answer without walking the
 * heap. Null where the runtime has no such call (the count alone then decides).
 */
import process from 'node:process';

/** A reader of resident bytes, or null where none is available. */
export function residentReader(): (() => number) | null {
  const rss = (process as { memoryUsage?: { rss?: () => number } }).memoryUsage?.rss;
  return typeof rss === 'function' ? () => rss() : null;
}
