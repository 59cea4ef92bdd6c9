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
  const deadline = startDeadline(timeoutMs);
  const done = deadline.clear;
  try {
    const response = await fetchImpl(url, { ...init, signal: deadline.signal });
    return { response, done };
  } catch {
    done();
    return { refused: deadline.refusal(), done };
  }
}

/** One call's deadline: an abort signal firing after `timeoutMs`, and what a failure means. */
export interface Deadline {
  signal: AbortSignal;
  /** Stops the timer (call once the answer is read or the call failed). */
  clear(): void;
  /** The 504 for a failed call: timed out when the deadline fired, else unreachable. */
  refusal(): Refusal;
}

/** Starts a deadline of `timeoutMs` milliseconds. */
export function startDeadline(timeoutMs: number): Deadline {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  return {
    signal: controller.signal,
    clear: () => clearTimeout(timer),
    refusal: () => timedOut ? upstreamTimedOut(timeoutMs) : upstreamUnreachable(),
  };
}

/** An upstream answer read whole: status, content-type, body text. */
export interface TextAnswer {
  status: number;
  contentType: string | null;
  text: string;
}

/**
 * POSTs `body` to `url` with exactly `headers` and reads the whole answer as text, all within
 * `timeoutMs` (headers and body); a 504 ProxyUpstreamUnavailable refusal when it could not.
 * The GraphQL forward's transport (step 21): the default is built on the host's fetch
 * ({@link fetchPostText}); the Node host passes one on undici's dispatcher (no Web streams).
 */
export type PostText = (
  url: string,
  headers: Readonly<Record<string, string>>,
  body: string,
  timeoutMs: number,
) => Promise<{ answer: TextAnswer } | { refused: Refusal }>;

/** {@link PostText} over a fetch (the default on every host but Node). */
export function fetchPostText(fetchImpl: typeof fetch): PostText {
  return async (url, headers, body, timeoutMs) => {
    const outcome = await fetchWithDeadline(fetchImpl, url, {
      method: 'POST',
      headers,
      body,
    }, timeoutMs);
    if ('refused' in outcome) return outcome;
    try {
      const text = await outcome.response.text();
      const { status, headers: answered } = outcome.response;
      return { answer: { status, contentType: answered.get('content-type'), text } };
    } catch {
      return { refused: upstreamTimedOut(timeoutMs) };
    } finally {
      outcome.done();
    }
  };
}
