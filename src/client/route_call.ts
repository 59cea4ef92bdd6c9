/**
 * One JSON call to an optional route group (auth, admin, publishing), and how its answer is
 * read. SPEC "Route table": a route that is not mounted is not claimed and the host answers its
 * own 404, which clients read as absence: SvcNotAvailableError (see readRouteAnswer for the
 * other shapes a host's unclaimed path takes). Refusals carry the error
 * envelope and are classified like GraphQL answers (session, auth, plain; status kept); a 2xx
 * answer is its JSON body. Route calls are not retried (most change something).
 */
import { classifyErrors } from './classify.ts';
import { CLIENT_DEFAULTS } from './defaults.ts';
import { type SvcErrorEntry, SvcHttpError, SvcNetworkError, SvcSessionError } from './errors.ts';
import type { AccessTokenGetter } from './http.ts';
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
  /** Session token for the gated routes (`authorization: Bearer <token>`). */
  getAccessToken?: AccessTokenGetter;
  /** Called when a route answers AuthSessionRequired or AuthTenantForbidden. */
  onSessionError?: (error: SvcSessionError) => void;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
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

/** Sends one route call and reads its answer (see {@link readRouteAnswer}). */
export async function callRoute<T>(options: SvcRoutesOptions, call: RouteRequest): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
  if (call.json !== undefined) headers['content-type'] = 'application/json';
  const token = await options.getAccessToken?.();
  if (token) headers.authorization = `Bearer ${token}`;
  const url = routeUrl(options.baseUrl, call.path, call.query);
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
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
  return readRouteAnswer(call.path, status, text, options.onSessionError) as T;
}
