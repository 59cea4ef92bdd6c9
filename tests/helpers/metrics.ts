/**
 * Reading a gateway's own gauges from `/svc/metrics` (METRICS=1 serves loopback callers), so a
 * test waits for a state (a slot held, a socket counted) instead of sleeping and hoping.
 */
import { sample } from '../observability/helpers.ts';

/** The value of `series` (name with labels) on the gateway at `url` now (null when absent). */
export async function gauge(url: string, series: string): Promise<number | null> {
  const res = await fetch(`${url}/svc/metrics`);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`/svc/metrics answered ${res.status}: ${text}`);
  return sample(text, series);
}

/**
 * Polls `series` every 10 ms until it equals `value` and `also()` holds (e.g. the call reached
 * the upstream); throws after 10 s.
 */
export async function waitForGauge(
  url: string,
  series: string,
  value: number,
  also: () => boolean = () => true,
) {
  const end = Date.now() + 10_000;
  let last = await gauge(url, series);
  while (last !== value || !also()) {
    if (Date.now() > end) throw new Error(`${series} stayed at ${last}, never ${value}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
    last = await gauge(url, series);
  }
}
