/**
 * The subscriptions open on one socket, and the frames that open, refuse and end them.
 *
 * Implements SPEC "Events" 3 and the socket paragraph of "Order in which a GraphQL body is
 * checked": at most subscriptionsPerSocket (128) open, the next gets an error frame
 * TooManySubscriptions; each subscribe runs the injected check chain, a refusal is an error
 * frame on that id with the HTTP route's code and the socket stays open; complete frames free
 * their slot both ways. Upstream answers are re-built, rewritten (SPEC "Error envelope") and
 * re-serialised, and each next payload teaches the resource fence through `learn`.
 */
import { redactText } from '../http/token_redaction.ts';
import type { Counters } from './counters.ts';
import {
  type JsonObject,
  rebuildError,
  rebuildResult,
  refusalFrame,
  serialiseComplete,
  serialiseError,
  serialiseNext,
  serialiseSignal,
  serialiseSubscribe,
  type UpstreamMessage,
} from './frames.ts';
import type { AdmittedSession, RelayDeps, ResultLike, SubscribeVerdict } from './types.ts';
import type { CloseSpec } from './upstream_leg.ts';

/** What became of a subscribe after its check. */
export type CheckOutcome =
  | { kind: 'forward'; text: string }
  | { kind: 'refused' }
  | { kind: 'close'; close: CloseSpec };

/** Refusal sentences the relay itself writes (codes from the registry). */
const SENTENCE = {
  tooMany: 'Too many subscriptions are open on this socket',
  checkFailed: 'The subscription could not be checked',
  rewriteFailed: 'The upstream answered with an error',
} as const;

interface Subscription {
  learn?: (answerText: string) => void;
  /** Ends the subscription's trace span (deps.traceSubscription). */
  end?: () => void;
}

/** Where a socket's frames toward the browser go (the connection). */
export interface BrowserSink {
  toBrowser(text: string): void;
}

/** The open subscriptions of one socket, counted in `counters.subscriptions`. */
export class Subscriptions {
  /** Made at the first subscribe: an idle socket holds no map. */
  #open: Map<string, Subscription> | null = null;
  #counters: Counters;
  #sink: BrowserSink;
  #ctx: { deps: RelayDeps; log(line: string): void };

  /** Binds the map to the relay's counts, the browser's send and the injected rewriting. */
  constructor(
    counters: Counters,
    sink: BrowserSink,
    ctx: { deps: RelayDeps; log(line: string): void },
  ) {
    this.#counters = counters;
    this.#sink = sink;
    this.#ctx = ctx;
  }

  #toBrowser(text: string): void {
    this.#sink.toBrowser(text);
  }

  /**
   * Takes a slot for `id`. 'duplicate': the id is open already (the caller closes 4409);
   * 'full': `max` are open, an error frame TooManySubscriptions went to the browser.
   */
  open(id: string, max: number): 'opened' | 'duplicate' | 'full' {
    const open = this.#open ??= new Map();
    if (open.has(id)) return 'duplicate';
    if (open.size >= max) {
      this.#toBrowser(refusalFrame(id, 'TooManySubscriptions', SENTENCE.tooMany));
      return 'full';
    }
    open.set(id, {});
    this.#counters.subscriptions++;
    return 'opened';
  }

  /**
   * Runs the check chain on an opened id: synchronously when the chain answers at once, else
   * as a promise (the caller holds later frames meanwhile). A refusal sends the error frame and
   * frees the slot; a throw or a pass without a string query is a refusal ProxyHandlerFailed
   * (logged); a pass gives the re-serialised subscribe.
   */
  check(
    id: string,
    payload: JsonObject,
    session: AdmittedSession,
  ): CheckOutcome | Promise<CheckOutcome> {
    let answer: SubscribeVerdict | Promise<SubscribeVerdict>;
    try {
      answer = this.#ctx.deps.checkSubscribe(payload, session);
    } catch {
      return this.#settle(id, this.#failed());
    }
    if (!isPromiseLike(answer)) return this.#settle(id, answer);
    return Promise.resolve(answer).then(
      (verdict) => this.#settle(id, verdict),
      () => this.#settle(id, this.#failed()),
    );
  }

  #failed(): SubscribeVerdict {
    this.#ctx.log('ws relay: the subscribe check failed');
    return { ok: false, code: 'ProxyHandlerFailed', message: SENTENCE.checkFailed };
  }

  #settle(id: string, verdict: SubscribeVerdict): CheckOutcome {
    if (verdict.ok && typeof verdict.payload?.query !== 'string') verdict = this.#failed();
    const sub = this.#open?.get(id);
    if (!verdict.ok) {
      if ('closeCode' in verdict) {
        return { kind: 'close', close: { code: verdict.closeCode, reason: verdict.reason } };
      }
      if (sub) {
        this.#drop(id);
        this.#toBrowser(refusalFrame(id, verdict.code, verdict.message));
      }
      return { kind: 'refused' };
    }
    if (!sub) return { kind: 'refused' };
    if (verdict.learn) sub.learn = verdict.learn;
    sub.end = this.#ctx.deps.traceSubscription?.();
    return { kind: 'forward', text: serialiseSubscribe(id, verdict.payload) };
  }

  /** A browser complete: frees the slot and gives the frame to send upstream (null: unknown id). */
  completeFromBrowser(id: string): string | null {
    return this.#drop(id) ? serialiseComplete(id) : null;
  }

  /**
   * An upstream frame for the browser (ping, pong, next, error, complete). Frames for ids not
   * open are dropped (PROTOCOL.md: unknown ids are ignored). `secret` (the master token) is cut
   * out of every text that goes to the browser.
   */
  fromUpstream(message: UpstreamMessage, secret: string | null): void {
    switch (message.type) {
      case 'ping':
      case 'pong':
        return this.#toBrowser(redactText(serialiseSignal(message.type, message.payload), secret));
      case 'next': {
        if (!this.#open?.has(message.id)) return;
        const json = JSON.stringify(this.#rewrite(rebuildResult(message.payload)));
        return this.nextFromUpstream(message.id, json, secret);
      }
      case 'error': {
        if (!this.#drop(message.id)) return;
        const rewritten = this.#rewrite({ errors: message.payload.map(rebuildError) });
        const errors = Array.isArray(rewritten.errors) ? rewritten.errors : [];
        return this.#toBrowser(redactText(serialiseError(message.id, errors), secret));
      }
      case 'complete':
        if (this.#drop(message.id)) {
          this.#toBrowser(redactText(serialiseComplete(message.id), secret));
        }
        return;
      case 'connection_ack':
        return; // handled by the upstream leg
    }
  }

  /**
   * A next frame's payload, re-serialised and rewritten (`payloadJson`: the result's JSON text;
   * the fast path gives one without `errors`, where SPEC "Error envelope" has nothing to
   * rewrite): the token cut out, the frame sent, the fence taught. Dropped for ids not open.
   * `idJson`: the id's JSON text, when the caller has it; `frame`: the frame already written
   * (`serialiseNext(id, payloadJson, idJson)`), when the caller has it.
   */
  nextFromUpstream(
    id: string,
    payloadJson: string,
    secret: string | null,
    idJson?: string,
    frame?: string | null,
  ): void {
    const sub = this.#open?.get(id);
    if (!sub) return;
    const json = redactText(payloadJson, secret);
    this.#toBrowser(json === payloadJson && frame ? frame : serialiseNext(id, json, idJson));
    this.#ctx.deps.frameRelayed?.();
    if (sub.learn) this.#learn(sub.learn, json);
  }

  /** Frees every slot (socket end). */
  clear(): void {
    const open = this.#open;
    if (!open) return;
    for (const sub of open.values()) sub.end?.();
    this.#counters.subscriptions -= open.size;
    open.clear();
  }

  #drop(id: string): boolean {
    const open = this.#open;
    if (!open) return false;
    open.get(id)?.end?.();
    if (!open.delete(id)) return false;
    this.#counters.subscriptions--;
    return true;
  }

  /** The injected sentence rewriting; if it throws, the errors are replaced, never passed raw. */
  #rewrite(result: ResultLike): ResultLike {
    try {
      return this.#ctx.deps.rewriteErrors(result);
    } catch {
      this.#ctx.log('ws relay: error rewriting failed; errors replaced');
      const errors = [{
        message: SENTENCE.rewriteFailed,
        extensions: { code: 'UpstreamServiceError' },
      }];
      return result.errors === undefined ? result : { ...result, errors };
    }
  }

  #learn(learn: (answerText: string) => void, json: string): void {
    try {
      learn(json);
    } catch {
      this.#ctx.log('ws relay: the resource fence could not learn from an answer');
    }
  }
}

/** True for a promise or any thenable. */
function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown })?.then === 'function';
}
