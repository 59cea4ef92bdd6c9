/**
 * A Prometheus stand-in for the bench (docs/operations.md "Metrics of a worker deployment"):
 * scrapes a gateway's /svc/metrics every `everyMs` on a connection of its own each time (so
 * scrapes land on every worker in turn), one at a time, and keeps how long each took.
 */

/** A running scraper; `stop` resolves to the scrapes made and their durations (ms). */
export interface Scraper {
  stop(): Promise<{ scrapes: number; failed: number; medianMs: number; maxMs: number }>;
}

/** Starts scraping `url` (the metrics URL) every `everyMs`. */
export function startScraper(url: string, everyMs: number): Scraper {
  const durations: number[] = [];
  let failed = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const client = Deno.createHttpClient({});
      const started = performance.now();
      try {
        const res = await fetch(url, { client, signal: AbortSignal.timeout(10_000) });
        await res.text();
        if (res.status === 200) durations.push(performance.now() - started);
        else failed++;
      } catch {
        failed++;
      } finally {
        client.close();
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const sorted = [...durations].sort((a, b) => a - b);
      return {
        scrapes: sorted.length,
        failed,
        medianMs: sorted[Math.floor(sorted.length / 2)] ?? NaN,
        maxMs: sorted.at(-1) ?? NaN,
      };
    },
  };
}
