/**
 * Outbound HTTP calls with a deadline. SPEC step 21 and "Forwarding rules".
 * Every call goes through the host's fetch (which honours HTTPS_PROXY,
 * HTTP_PROXY and NO_PROXY: Deno's fetch by itself, Node's through undici).
 */
import { type Refusal, refusal } from '../http/error_codes.ts';

/** The upstream answered, or it did not within `timeoutMs` / could not be reached. */
export type Outcome = { response: Response } | { refused: Refusal };

/** 504 ProxyUpstreamUnavailable naming the budget in ms. */
export function upstreamTimedOut(timeoutMs: number): Refusal {
  return refusal(
    'ProxyUpstreamUnavailable',
    `The upstream did not answer within ${timeoutMs} ms`,
  );
}

/** 504 ProxyUpstreamUnavailable for an unreachable upstream. */
export function upstreamUnreachable(): Refusal {
  return refusal('ProxyUpstreamUnavailable', 'The upstream could not be reached');
}

/**
 * fetch(url, init) with a deadline covering the answer's headers; the body
 * is read by the caller under the same signal (`signal` aborts after
 * `timeoutMs`; call `done()` once the body is consumed to clear the timer).
 */
export async function fetchWithDeadline(
  fetchImpl: typeof fetch,
  url: string,
  init: RequestInit,
  timeoutMs: number,
): Promise<Outcome & { done: () => void }> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const done = () => clearTimeout(timer);
  try {
    const response = await fetchImpl(url, { ...init, signal: controller.signal });
    return { response, done };
  } catch {
    done();
    return { refused: timedOut ? upstreamTimedOut(timeoutMs) : upstreamUnreachable(), done };
  }
}
