/**
 * The GraphQL forward's transport on Node (SPEC step 21, "Forwarding rules"): one POST through
 * undici's `dispatch` with a handler of our own, so the hot path builds no Web Request/Response,
 * no Node stream for the answer and no AbortController (docs/benchmarks.md "The gateway's own
 * cost": each of those showed in the Node host's profile). The deadline is one entry in the shared
 * timer heap covering headers and body (src/ws/timer_heap.ts: no runtime timer per call); when it
 * fires the request is aborted through undici's dispatch controller (or, if undici has not started
 * it yet, as soon as it does) and the caller gets 504 at once. The same abort ends the call when
 * the caller goes away (docs/operations.md "Faults": its in-flight slot is released at once) and
 * when the answer passes its size bound (502 UpstreamAnswerTooLarge).
 */
import { Buffer } from 'node:buffer';
import type { Dispatcher } from 'undici';
import {
  answerTooLarge,
  callerGone,
  type CallerSignal,
  type PostCall,
  type PostText,
  type Refusal,
  SHARED_TIMERS,
  type TextAnswer,
  type TimerEntry,
  upstreamTimedOut,
  upstreamUnreachable,
} from '../../src/host_api.ts';

type Settle = (outcome: { answer: TextAnswer } | { refused: Refusal }) => void;

/** The error a fired deadline (or a gone caller, an oversize answer) aborts the request with. */
const DEADLINE = new Error('svc-gateway: upstream deadline');

/** One in-flight POST: collects the answer, settles once. */
class PostHandler implements Dispatcher.DispatchHandler {
  #settle: Settle | null;
  #controller: Dispatcher.DispatchController | null = null;
  #timer: TimerEntry;
  /** Set once the call is given up (deadline, caller gone, answer too large): abort on start. */
  #stopped = false;
  #timedOut = false;
  #status = 0;
  #contentType: string | null = null;
  #chunks: Buffer[] = [];
  #bytes = 0;
  readonly #timeoutMs: number;
  readonly #maxBytes: number;
  readonly #caller: CallerSignal | undefined;
  readonly #onAnswerBytes: ((bytes: number) => void) | undefined;
  readonly #onCallerGone = () => this.#stop({ refused: callerGone() });

  constructor(settle: Settle, timeoutMs: number, call: PostCall) {
    this.#settle = settle;
    this.#timeoutMs = timeoutMs;
    this.#maxBytes = call.maxAnswerBytes ?? Infinity;
    this.#onAnswerBytes = call.onAnswerBytes;
    this.#timer = SHARED_TIMERS.schedule(timeoutMs, () => this.#expire());
    this.#caller = call.caller;
    if (this.#caller?.aborted) this.#onCallerGone();
    else this.#caller?.addEventListener('abort', this.#onCallerGone);
  }

  #finish(outcome: { answer: TextAnswer } | { refused: Refusal }): void {
    if (this.#settle === null) return;
    SHARED_TIMERS.cancel(this.#timer);
    this.#caller?.removeEventListener('abort', this.#onCallerGone);
    const settle = this.#settle;
    this.#settle = null;
    settle(outcome);
  }

  /** Gives the call up: the upstream request is aborted (its connection closed) and settled. */
  #stop(outcome: { refused: Refusal }): void {
    this.#stopped = true;
    this.#chunks = [];
    // settled first: the abort calls onResponseError synchronously, which must not settle it
    this.#finish(outcome);
    this.#controller?.abort(DEADLINE);
  }

  #expire(): void {
    this.#timedOut = true;
    this.#stop({ refused: upstreamTimedOut(this.#timeoutMs) });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#stopped) controller.abort(DEADLINE);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    this.#status = statusCode;
    const type = headers['content-type'];
    this.#contentType = Array.isArray(type) ? type[0] : type ?? null;
    if (Number(headers['content-length']) > this.#maxBytes) this.#tooLarge();
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#stopped) return;
    this.#bytes += chunk.byteLength;
    if (this.#bytes > this.#maxBytes) return this.#tooLarge();
    this.#onAnswerBytes?.(chunk.byteLength);
    this.#chunks.push(chunk);
  }

  #tooLarge(): void {
    this.#stop({ refused: answerTooLarge(this.#maxBytes) });
  }

  onResponseEnd(): void {
    if (this.#stopped) return;
    const whole = this.#chunks.length === 1 ? this.#chunks[0] : Buffer.concat(this.#chunks);
    this.#chunks = [];
    const decoded = whole.toString();
    // as fetch's text() does: a leading byte order mark is not part of the text
    const text = decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded;
    this.#finish({ answer: { status: this.#status, contentType: this.#contentType, text } });
  }

  onResponseError(_controller: Dispatcher.DispatchController, _error: Error): void {
    this.#chunks = [];
    this.#finish({
      refused: this.#timedOut ? upstreamTimedOut(this.#timeoutMs) : upstreamUnreachable(),
    });
  }
}

/** `origin` and `path` of an absolute URL, without building a URL object for the common form. */
function splitUrl(url: string): { origin: string; path: string } {
  const slash = url.indexOf('/', url.indexOf('//') + 2);
  if (slash === -1) return { origin: url, path: '/' };
  return { origin: url.slice(0, slash), path: url.slice(slash) };
}

/**
 * {@link PostText} over `dispatcher` (the Node hosts' shared EnvHttpProxyAgent, so proxy
 * variables hold): the answer is read whole as UTF-8 text within `timeoutMs`; 504
 * ProxyUpstreamUnavailable when it times out, the upstream cannot be reached or `call.caller`
 * aborts (the request is then aborted at once); 502 UpstreamAnswerTooLarge past
 * `call.maxAnswerBytes`.
 */
export function dispatchPostText(dispatcher: Dispatcher): PostText {
  return (url, headers, body, timeoutMs, call = {}) =>
    new Promise((settle) => {
      const handler = new PostHandler(settle, timeoutMs, call);
      const { origin, path } = splitUrl(url);
      try {
        dispatcher.dispatch({ origin, path, method: 'POST', headers, body }, handler);
      } catch {
        handler.onResponseError(null!, DEADLINE);
      }
    });
}
