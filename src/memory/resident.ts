/**
 * The process's resident memory, the accountant's second signal, and the runtime's garbage
 * collector, its "shrink the heap" action (docs/operations.md "Memory"). Both through `node:`
 * modules both runtimes answer: `process.memoryUsage.rss()` reads the resident size without
 * walking the heap; the collector is V8's, exposed at run time (`--expose-gc` set through
 * `node:v8`, the function taken from a fresh `node:vm` context). Null where either is missing.
 */
import process from 'node:process';
import v8 from 'node:v8';
import vm from 'node:vm';

/** A reader of resident bytes, or null where none is available. */
export function residentReader(): (() => number) | null {
  const rss = (process as { memoryUsage?: { rss?: () => number } }).memoryUsage?.rss;
  return typeof rss === 'function' ? () => rss() : null;
}

let collector: (() => void) | null | undefined;

/** A full garbage collection (tens of ms, stops the process), or null where none is offered. */
export function garbageCollector(): (() => void) | null {
  if (collector !== undefined) return collector;
  try {
    const exposed = (globalThis as { gc?: unknown }).gc;
    if (typeof exposed === 'function') return collector = () => exposed();
    v8.setFlagsFromString('--expose-gc');
    const gc: unknown = vm.runInNewContext('gc');
    collector = typeof gc === 'function' ? () => gc() : null;
  } catch {
    collector = null;
  }
  return collector;
}
