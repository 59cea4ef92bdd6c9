/**
 * createSvcClient: GraphQL over HTTP POST through the gateway, with the spec's retry rules.
 * Implements SPEC "Client library error classes" (Retries, onSessionError) over
 * "Route table" POST /svc/graphql. Browser APIs only (fetch, AbortSignal, location).
 */
import { classifyAnswer } from './classify.ts';
import { backoffMs, CLIENT_DEFAULTS } from './defaults.ts';
import {
  SvcApiError,
  SvcAuthError,
  SvcHttpError,
  SvcNetworkError,
  SvcSessionError,
} from './errors.ts';
import { documentText, type SvcDocument } from './document.ts';
import { createSessionLatch, type SvcSessionLatch } from './session_latch.ts';
import { sameOriginUrl, sleep } from './util.ts';

/** Returns the session JWT (without 'Bearer '), or null/undefined/'' when nobody is signed in. */
export type AccessTokenGetter = () =>
  | string
  | null
  | undefined
  | Promise<string | null | undefined>;

/** Retry tuning (ms). Defaults: 3 retries, 1000 ms base, 30000 ms cap. */
export interface SvcRetryOptions {
  retries?: number;
  baseMs?: number;
  capMs?: number;
}

/** Options of {@link createSvcClient}. */
export interface SvcClientOptions {
  /** GraphQL endpoint. Default: the page's own origin + '/svc/graphql'. */
  url?: string;
  /** Read before every attempt; a token gives `authorization: Bearer <token>`. */
  getAccessToken?: AccessTokenGetter;
  /**
   * Called once per session lapse (re-armed by the next clean result); the same latch serves the
   * route helpers built from this client (`createAuthRoutes({client})`, ...).
   */
  onSessionError?: (error: SvcSessionError) => void;
  /** Retry tuning; see {@link SvcRetryOptions}. */
  retry?: SvcRetryOptions;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
  /** Give up an attempt after this many ms (SvcNetworkError); 0 or absent: no client timeout. */
  timeoutMs?: number;
}

/** Per-call options of {@link SvcClient.request}. */
export interface SvcRequestOptions {
  /** Safe to send twice: network failures and 5xx answers are retried. Default false. */
  idempotent?: boolean;
  /** Cancels the call (the signal's reason is thrown, not an SvcApiError). */
  signal?: AbortSignal;
  /** Sent as the body's operationName (the gateway forwards the parsed document's own name). */
  operationName?: string;
}

/** The HTTP client. */
export interface SvcClient {
  /** The endpoint requests go to. */
  readonly url: string;
  /** The token getter of the options; route helpers built from this client read it too. */
  readonly getAccessToken: AccessTokenGetter | undefined;
  /** This client's once-per-lapse latch around onSessionError, shared with its route helpers. */
  readonly sessionLatch: SvcSessionLatch;
  /**
   * POSTs one operation and resolves with its `data`, typed from a TypedDocumentNode. Throws an
   * SvcApiError subclass (see classify.ts); retries per SPEC: a 429 always (waiting at least
   * its retry-after, up to capMs), a network failure or a 5xx only when `idempotent`, GraphQL,
   * auth and session errors never.
   */
  request<TData = unknown, TVariables extends Record<string, unknown> = Record<string, unknown>>(
    document: SvcDocument<TData, TVariables>,
    variables?: TVariables,
    options?: SvcRequestOptions,
  ): Promise<TData>;
}

/** The retry settings with defaults applied (a non-negative number, else the default). */
export function resolveRetry(
  retry: SvcRetryOptions | undefined,
): { retries: number; baseMs: number; capMs: number } {
  const pick = (value: number | undefined, fallback: number) =>
    typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fallback;
  return {
    retries: Math.floor(pick(retry?.retries, CLIENT_DEFAULTS.httpRetries)),
    baseMs: pick(retry?.baseMs, CLIENT_DEFAULTS.httpBaseMs),
    capMs: pick(retry?.capMs, CLIENT_DEFAULTS.httpCapMs),
  };
}

/** Whether an attempt's error may be retried (SPEC "Client library error classes", Retries). */
export function isRetryable(error: SvcApiError, idempotent: boolean): boolean {
  if (error instanceof SvcHttpError && error.status === 429) return true;
  if (!idempotent) return false;
  if (error instanceof SvcNetworkError) return true;
  const status = (error as { status?: number }).status ?? 0;
  return status >= 500 && !(error instanceof SvcAuthError) && !(error instanceof SvcSessionError);
}

/** Builds the headers of one attempt (the token read fresh). */
async function headersFor(getAccessToken?: AccessTokenGetter): Promise<Record<string, string>> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
  };
  const token = await getAccessToken?.();
  if (token) headers.authorization = `Bearer ${token}`;
  return headers;
}

/** Creates the HTTP client (SPEC "Client library error classes"). */
export function createSvcClient(options: SvcClientOptions = {}): SvcClient {
  const url = options.url ?? sameOriginUrl(CLIENT_DEFAULTS.graphqlPath);
  const retry = resolveRetry(options.retry);
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const latch = createSessionLatch(options.onSessionError);

  async function attempt(body: string, signal?: AbortSignal): Promise<unknown> {
    const headers = await headersFor(options.getAccessToken);
    const timeout = options.timeoutMs ? AbortSignal.timeout(options.timeoutMs) : undefined;
    const signals = [signal, timeout].filter((s): s is AbortSignal => s !== undefined);
    let response: Response;
    let text: string;
    try {
      response = await doFetch(url, {
        method: 'POST',
        headers,
        body,
        signal: signals.length ? AbortSignal.any(signals) : undefined,
        credentials: 'same-origin',
      });
      text = await response.text();
    } catch (cause) {
      if (signal?.aborted) throw signal.reason;
      throw new SvcNetworkError(`Could not reach ${url}`, cause);
    }
    const outcome = classifyAnswer(response.status, text, response.headers.get('retry-after'));
    if (outcome.ok) return outcome.data;
    throw outcome.error;
  }

  function noteOutcome(error: unknown): void {
    if (error === null) latch.clean();
    else if (error instanceof SvcSessionError) latch.lapse(error);
  }

  async function request<TData>(
    document: SvcDocument<TData, Record<string, unknown>>,
    variables?: Record<string, unknown>,
    call: SvcRequestOptions = {},
  ): Promise<TData> {
    const body = JSON.stringify({
      query: documentText(document),
      ...(call.operationName ? { operationName: call.operationName } : {}),
      ...(variables ? { variables } : {}),
    });
    for (let n = 0;; n++) {
      try {
        const data = await attempt(body, call.signal);
        noteOutcome(null);
        return data as TData;
      } catch (error) {
        if (!(error instanceof SvcApiError)) throw error;
        if (n >= retry.retries || !isRetryable(error, call.idempotent === true)) {
          noteOutcome(error);
          throw error;
        }
        const floor = error instanceof SvcHttpError ? (error.retryAfterMs ?? 0) : 0;
        const wait = Math.min(
          retry.capMs,
          Math.max(floor, backoffMs(n, retry.baseMs, retry.capMs)),
        );
        await sleep(wait, call.signal);
      }
    }
  }

  return {
    url,
    getAccessToken: options.getAccessToken,
    sessionLatch: latch,
    request: request as SvcClient['request'],
  };
}
