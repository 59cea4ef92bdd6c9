/**
 * One JSON call to an optional route group (auth, admin, publishing), and how its answer is
 * read. SPEC "Route table": a route that is not mounted is not claimed and the host answers its
 * own 404, which clients read as absence: SvcNotAvailableError (see readRouteAnswer for the
 * other shapes a host's unclaimed path takes). Refusals carry the error
 * envelope and are classified like GraphQL answers (session, auth, plain; status kept); a 2xx
 * answer is its JSON body. Route calls are not retried (most change something). Session refusals
 * go through one once-per-lapse latch (SPEC "Client library error classes": "onSessionError fires
 * once per lapse and re-arms on the next clean result"): the client's when the helpers are built
 * from one, else one per helper object.
 */
import { classifyErrors } from './classify.ts';
import { CLIENT_DEFAULTS } from './defaults.ts';
import { type SvcErrorEntry, SvcHttpError, SvcNetworkError, SvcSessionError } from './errors.ts';
import type { AccessTokenGetter, SvcClient } from './http.ts';
import { createSessionLatch, type SvcSessionLatch } from './session_latch.ts';
import { sameOriginUrl } from './util.ts';

/**
 * The host's answer for a route this deployment does not mount (its own 404; `status` is what
 * the host answered) ("not available on this
 * deployment": no publishing routes, keep the queue in the browser; no admin route, no panel).
 */
export class SvcNotAvailableError extends SvcHttpError {
  /** The path that is not mounted. */
  readonly path: string;
  constructor(path: string, status: number, bodySnippet: string) {
    super(status, bodySnippet);
    this.name = 'SvcNotAvailableError';
    this.message = `${path} is not available on this deployment`;
    this.path = path;
  }
}

/** Whether `error` says the route is not mounted on this deployment. */
export function isNotAvailable(error: unknown): error is SvcNotAvailableError {
  return error instanceof SvcNotAvailableError;
}

/** Options every route group takes. */
export interface SvcRoutesOptions {
  /** Origin (and base path) of the gateway, e.g. 'https://app.example'. Default: the page's. */
  baseUrl?: string;
  /** Session token for the gated routes (`authorization: Bearer <token>`). Default: the client's. */
  getAccessToken?: AccessTokenGetter;
  /**
   * Called when a route answers AuthSessionRequired or AuthTenantForbidden, once per lapse for
   * all the calls of this helper object (re-armed by its next clean answer). Not together with
   * `client` (TypeError): give it to the client.
   */
  onSessionError?: (error: SvcSessionError) => void;
  /**
   * Build the calls from this client: its getAccessToken (unless given here) and its
   * onSessionError latch, shared with its GraphQL requests and every other helper built from it.
   */
  client?: Pick<SvcClient, 'getAccessToken' | 'sessionLatch'>;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

/** What the calls of one helper object share, settled once when the helper is made. */
export interface RouteContext {
  baseUrl?: string;
  getAccessToken?: AccessTokenGetter;
  fetch?: typeof fetch;
  /** The once-per-lapse latch (the client's, or the helper's own). */
  latch: SvcSessionLatch;
  /**
   * Whether the calls carry the user's session: only then does a clean answer re-arm the latch
   * (an admin-cookie call's answer says nothing about the session).
   */
  session: boolean;
}

/** The context of a helper made with `options` (see {@link SvcRoutesOptions}). */
export function routeContext(options: SvcRoutesOptions): RouteContext {
  if (options.client && options.onSessionError) {
    throw new TypeError('onSessionError belongs to the client the routes are built from');
  }
  return {
    baseUrl: options.baseUrl,
    getAccessToken: options.getAccessToken ?? options.client?.getAccessToken,
    fetch: options.fetch,
    latch: options.client?.sessionLatch ?? createSessionLatch(options.onSessionError),
    session: true,
  };
}

/** The same context for calls made with the admin cookie: no session token, no re-arming. */
export function withoutSession(context: RouteContext): RouteContext {
  return { ...context, getAccessToken: undefined, session: false };
}

/** One call: method, path under the base, optional JSON body, query and extra headers. */
export interface RouteRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | undefined>;
  json?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** The absolute URL of `path` (with `query`, undefined values left out) under `baseUrl`. */
export function routeUrl(
  baseUrl: string | undefined,
  path: string,
  query: Record<string, string | undefined> = {},
): string {
  const base = (baseUrl ?? sameOriginUrl('/')).replace(/\/+$/, '');
  const url = new URL(`${base}${path}`);
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  return url.href;
}

/**
 * Reads a route's answer: 2xx JSON (or null for an empty body); errors[] at any status is
 * classified (session errors also go to `onSessionError`); anything else an SvcHttpError,
 * except what a host answers for a path nothing claimed, read as SvcNotAvailableError: its own
 * 404 without an envelope, the 405 of a static half that takes only GET and HEAD, and a 2xx
 * that is not JSON (a Node host serving an app falls back to its index.html).
 */
export function readRouteAnswer(
  path: string,
  status: number,
  text: string,
  onSessionError?: (error: SvcSessionError) => void,
): unknown {
  let body: unknown = undefined;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch { /* not JSON */ }
  const errors = (body as { errors?: unknown } | null)?.errors;
  const snippet = text.slice(0, CLIENT_DEFAULTS.bodySnippetChars);
  if (Array.isArray(errors) && errors.length > 0 && status !== 429) {
    const error = classifyErrors(errors as SvcErrorEntry[], null, status);
    if (error instanceof SvcSessionError) onSessionError?.(error);
    throw error;
  }
  if (status === 404 || status === 405 || (status >= 200 && status < 300 && body === undefined)) {
    throw new SvcNotAvailableError(path, status, snippet);
  }
  if (status >= 200 && status < 300) return body;
  const code = Array.isArray(errors)
    ? (errors[0] as SvcErrorEntry | undefined)?.extensions?.code ?? null
    : null;
  throw new SvcHttpError(status, snippet, { code });
}

/**
 * Sends one route call and reads its answer (see {@link readRouteAnswer}); a session refusal
 * goes to the latch, a clean answer of a session call re-arms it. Given plain options, the call
 * gets a context (and latch) of its own.
 */
export async function callRoute<T>(
  options: RouteContext | SvcRoutesOptions,
  call: RouteRequest,
): Promise<T> {
  const context = 'latch' in options ? options : routeContext(options);
  const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
  if (call.json !== undefined) headers['content-type'] = 'application/json';
  const token = await context.getAccessToken?.();
  if (token) headers.authorization = `Bearer ${token}`;
  const url = routeUrl(context.baseUrl, call.path, call.query);
  const doFetch = context.fetch ?? ((input, init) => globalThis.fetch(input, init));
  let status: number;
  let text: string;
  try {
    const response = await doFetch(url, {
      method: call.method,
      headers,
      body: call.json === undefined ? undefined : JSON.stringify(call.json),
      credentials: 'same-origin',
      signal: call.signal,
    });
    status = response.status;
    text = await response.text();
  } catch (cause) {
    if (call.signal?.aborted) throw call.signal.reason;
    throw new SvcNetworkError(`Could not reach ${url}`, cause);
  }
  return settle(context, () => readRouteAnswer(call.path, status, text, context.latch.lapse));
}

/** Reads an answer through the latch: a clean answer of a session call re-arms it. */
export function settle<T>(context: RouteContext, read: () => unknown): T {
  const answer = read();
  if (context.session) context.latch.clean();
  return answer as T;
}
