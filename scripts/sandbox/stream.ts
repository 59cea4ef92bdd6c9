/**
 * The deterministic event stream behind every subscription: `count` events, one every `tickMs`
 * ms, then completion or silence. `return()` (client complete, socket close) clears its timer
 * at once, so no timer outlives the subscription.
 */
import type { StreamSettings } from './switches.ts';

/** An async iterator emitting `make(0)`, `make(1)`, … per `settings` (copied at creation). */
export function eventStream<T>(
  make: (n: number) => T,
  settings: StreamSettings,
): AsyncIterableIterator<T> & { return(): Promise<IteratorResult<T>> } {
  const { count, tickMs, complete } = { ...settings };
  let n = 0;
  let done = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake: ((r: IteratorResult<T>) => void) | undefined;
  const finished = (): IteratorResult<T> => ({ value: undefined, done: true });
  const iterator = {
    [Symbol.asyncIterator]() {
      return iterator;
    },
    next(): Promise<IteratorResult<T>> {
      if (done) return Promise.resolve(finished());
      if (n >= count) {
        if (complete) {
          done = true;
          return Promise.resolve(finished());
        }
        return new Promise((resolve) => (wake = resolve));
      }
      return new Promise((resolve) => {
        wake = resolve;
        timer = setTimeout(() => {
          timer = undefined;
          wake = undefined;
          resolve({ value: make(n++), done: false });
        }, tickMs);
      });
    },
    return(): Promise<IteratorResult<T>> {
      done = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      wake?.(finished());
      wake = undefined;
      return Promise.resolve(finished());
    },
  };
  return iterator;
}
