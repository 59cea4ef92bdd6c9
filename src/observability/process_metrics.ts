/**
 * Process-level series (docs/operations.md "Metrics"): resident memory, heap, start time, event
 * loop lag. In a worker deployment each worker's are labelled `worker` (aggregate.ts); under
 * `deno serve --parallel` resident memory is the one process's, read by every isolate alike.
 * The memory budget's series are the registry's (metrics.ts; docs/operations.md "Memory").
 */

/** Seconds since the epoch when this module was loaded (the process or isolate started). */
const startedSeconds = Math.floor(Date.now() / 1000);

interface MemoryUsage {
  rss: number;
  heapUsed: number;
}

function memoryUsage(): MemoryUsage | null {
  const process = (globalThis as { process?: { memoryUsage?: () => MemoryUsage } }).process;
  return process?.memoryUsage?.() ?? null;
}

/** How late a zero-delay timer set now runs (ms): the event loop's lag at scrape time. */
export function eventLoopLagMs(): Promise<number> {
  const set = performance.now();
  return new Promise((resolve) => setTimeout(() => resolve(performance.now() - set), 0));
}

function gauge(name: string, help: string, value: number): string[] {
  return [`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, `${name} ${value}`];
}

/** This process's series, lag measured by the caller (`eventLoopLagMs`). */
export function processLines(lagMs: number): string[] {
  const memory = memoryUsage();
  return [
    ...(memory
      ? [
        ...gauge('process_resident_memory_bytes', 'Resident memory (bytes).', memory.rss),
        ...gauge('process_heap_used_bytes', 'JavaScript heap in use (bytes).', memory.heapUsed),
      ]
      : []),
    ...gauge(
      'process_start_time_seconds',
      'When this process (or isolate) started, seconds since the epoch.',
      startedSeconds,
    ),
    ...gauge(
      'svc_event_loop_lag_seconds',
      'How late a zero-delay timer set at scrape time ran.',
      Math.max(0, lagMs) / 1000,
    ),
  ];
}
