/**
 * Outbound HTTP calls with a deadline. SPEC step 21 and "Forwarding rules".
 * Every call goes through the host's fetch (which honours HTTPS_PROXY,
 * HTTP_PROXY and NO_PROXY: Deno's fetch by itself, Node's through undici).
 */
import { readStreamCapped } from '../http/body.ts';
import { type Refusal, refusal } from '../http/error_codes.ts';
import type { CallerSignal } from '../http/request.ts';

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
 * The refusal of a call cancelled because its caller went away (docs/operations.md "Faults").
 * Nobody is left to read it; it is what the route's metrics and access line record.
 */
export function callerGone(): Refusal {
  return refusal('ProxyUpstreamUnavailable', 'The caller went away before the upstream answered');
}

/**
 * 502 UpstreamAnswerTooLarge: the upstream's answer is over `limit` bytes (not a spec code: the
 * spec has no answer-size bound; docs/configuration.md "Upstream", option upstreamAnswerMaxBytes).
 */
export function answerTooLarge(limit: number): Refusal {
  return refusal('UpstreamAnswerTooLarge', `The upstream's answer is over ${limit} bytes`);
}

/**
 * fetch(url, init) with a deadline covering the answer's headers; the body
 * is read by the caller under the same signal (`signal` aborts after
 * `timeoutMs`, or as soon as `caller` aborts; call `done()` once the body is
 * consumed to clear the timer; `failed()` is the refusal for a body that failed to read:
 * timed out, caller gone, else unreachable).
 */
export async function fetchWithDeadline(
  fetchImpl: typeof fetch,
  url: string,
  init: RequestInit,
  timeoutMs: number,
  caller?: CallerSignal,
): Promise<Outcome & { done: () => void; failed: () => Refusal }> {
  const deadline = startDeadline(timeoutMs, caller);
  const done = deadline.clear;
  const failed = deadline.refusal;
  try {
    const response = await fetchImpl(url, { ...init, signal: deadline.signal });
    return { response, done, failed };
  } catch {
    done();
    return { refused: deadline.refusal(), done, failed };
  }
}

/**
 * One call's deadline: an abort signal firing after `timeoutMs` or when the caller goes away,
 * and what a failure means.
 */
export interface Deadline {
  signal: AbortSignal;
  /** Stops the timer and stops listening to the caller (once the answer is read or failed). */
  clear(): void;
  /** The 504 for a failed call: timed out, caller gone, else unreachable. */
  refusal(): Refusal;
}

/** Starts a deadline of `timeoutMs` milliseconds, cut short when `caller` aborts. */
export function startDeadline(timeoutMs: number, caller?: CallerSignal): Deadline {
  const controller = new AbortController();
  let cause: 'timeout' | 'caller' | null = null;
  const stop = (why: 'timeout' | 'caller') => {
    cause ??= why;
    controller.abort();
  };
  const onCallerGone = () => stop('caller');
  const timer = setTimeout(() => stop('timeout'), timeoutMs);
  if (caller?.aborted) stop('caller');
  else caller?.addEventListener('abort', onCallerGone);
  return {
    signal: controller.signal,
    clear: () => {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onCallerGone);
    },
    refusal: () =>
      cause === 'timeout'
        ? upstreamTimedOut(timeoutMs)
        : cause === 'caller'
        ? callerGone()
        : upstreamUnreachable(),
  };
}

/** An upstream answer read whole: status, content-type, body text. */
export interface TextAnswer {
  status: number;
  contentType: string | null;
  text: string;
}

/**
 * What a {@link PostText} call is bounded by, beside its deadline (docs/operations.md "Faults").
 */
export interface PostCall {
  /** Cancels the call at once when it aborts (the caller went away): {@link callerGone}. */
  caller?: CallerSignal;
  /** Answers over this many bytes are cut off: {@link answerTooLarge}. Absent: no bound. */
  maxAnswerBytes?: number;
  /**
   * Told the size in bytes of each chunk of the answer's body as it arrives, once it is within
   * `maxAnswerBytes` and before it is kept: the memory count holds the answer from its first byte
   * (docs/operations.md "Memory").
   */
  onAnswerBytes?: (bytes: number) => void;
}

/**
 * POSTs `body` to `url` with exactly `headers` and reads the whole answer as text, all within
 * `timeoutMs` (headers and body); a 504 ProxyUpstreamUnavailable refusal when it could not, a
 * 502 UpstreamAnswerTooLarge one past `call.maxAnswerBytes`. When `call.caller` aborts, the
 * upstream request is cancelled (its connection closed) and the promise settles at once.
 * The GraphQL forward's transport (step 21): the default is built on the host's fetch
 * ({@link fetchPostText}); the Node host passes one on undici's dispatcher (no Web streams).
 */
export type PostText = (
  url: string,
  headers: Readonly<Record<string, string>>,
  body: string,
  timeoutMs: number,
  call?: PostCall,
) => Promise<{ answer: TextAnswer } | { refused: Refusal }>;

/** {@link PostText} over a fetch (the default on every host but Node). */
export function fetchPostText(fetchImpl: typeof fetch): PostText {
  return async (url, headers, body, timeoutMs, call = {}) => {
    const outcome = await fetchWithDeadline(
      fetchImpl,
      url,
      {
        method: 'POST',
        headers,
        body,
      },
      timeoutMs,
      call.caller,
    );
    if ('refused' in outcome) return outcome;
    try {
      const limit = call.maxAnswerBytes ?? Infinity;
      const text = await readCappedAnswer(outcome.response, limit, call.onAnswerBytes);
      if (text === null) return { refused: answerTooLarge(limit) };
      const { status, headers: answered } = outcome.response;
      return { answer: { status, contentType: answered.get('content-type'), text } };
    } catch {
      return { refused: outcome.failed() };
    } finally {
      outcome.done();
    }
  };
}

const UTF8 = new TextDecoder();

/**
 * The answer's body as text (a leading byte order mark dropped, as `text()` does), or null once
 * it is over `limit` bytes (declared or read; the rest is cancelled, never buffered). `seen` is
 * told each chunk's size as it is kept.
 */
export async function readCappedAnswer(
  response: Response,
  limit: number,
  seen?: (bytes: number) => void,
): Promise<string | null> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > limit || !response.body) {
    await response.body?.cancel().catch(() => {});
    return declared > limit ? null : '';
  }
  const bytes = await readStreamCapped(response.body, limit, seen);
  return bytes === null ? null : UTF8.decode(bytes);
}
