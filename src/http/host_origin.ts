/**
 * Checks before any route: host, origin and CORS.
 * SPEC "Checks before any route (also applied to the WebSocket upgrade)" 1-3, 6.
 */
import type { ResolvedConfig } from '../config/resolved.ts';
import { type Refusal, refusal } from './error_codes.ts';
import type { SvcRequest } from './request.ts';
import type { PlainAnswer } from './answer.ts';
import { type HostValue, isLoopbackHostName, parseHost } from './host_header.ts';

/** true for localhost, *.localhost, 127.0.0.0/8 and [::1] (`host` a `host[:port]` value). */
export function isLoopbackName(host: string): boolean {
  const parsed = parseHost(host);
  return parsed !== null && isLoopbackHostName(parsed.name);
}

/** Parsed allowedHosts entries, once per resolved configuration. */
const parsedEntries = new WeakMap<readonly string[], readonly HostValue[]>();

function entriesOf(allowedHosts: readonly string[]): readonly HostValue[] {
  let parsed = parsedEntries.get(allowedHosts);
  if (parsed === undefined) {
    // an entry that is no host never matches anything
    parsed = allowedHosts.map(parseHost).filter((h): h is HostValue => h !== null);
    parsedEntries.set(allowedHosts, parsed);
  }
  return parsed;
}

/** Whether the Host value is one an entry answers: an entry without port matches any port. */
function hostMatches(host: HostValue, entry: HostValue): boolean {
  return host.name === entry.name && (entry.port === null || entry.port === host.port);
}

/**
 * Step 1: 403 ProxyHostForbidden unless the Host header is answered here. Where the check
 * applies (allowedHosts is not null), the Host header must be present and be one host with an
 * optional numeric port (`parseHost`); a loopback name then passes, else it must match an entry.
 */
export function checkHost(config: ResolvedConfig, request: SvcRequest): Refusal | null {
  if (config.allowedHosts === null) return null;
  const value = request.headers.get('host');
  const host = value === null ? null : parseHost(value);
  if (host !== null) {
    if (isLoopbackHostName(host.name)) return null;
    if (entriesOf(config.allowedHosts).some((entry) => hostMatches(host, entry))) return null;
  }
  return refusal(
    'ProxyHostForbidden',
    'This deployment does not answer to that host; list it in ALLOWED_HOSTS',
  );
}

/** The request's own `host[:port]` (lowercased). */
function ownHost(request: SvcRequest): string {
  return (request.headers.get('host') ?? new URL(request.url).host).toLowerCase();
}

function originHost(origin: string): string | null {
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return null;
  }
}

/** Whether Origin names this deployment's own host and port (scheme ignored). */
export function isSameOrigin(request: SvcRequest): boolean {
  const origin = request.headers.get('origin');
  return origin !== null && originHost(origin) === ownHost(request);
}

/** Whether Origin is a listed cross-origin caller (CORS applies). */
export function isListedOrigin(config: ResolvedConfig, request: SvcRequest): boolean {
  const origin = request.headers.get('origin');
  if (origin === null || isSameOrigin(request)) return false;
  const normalised = origin.toLowerCase().replace(/\/+$/, '');
  return config.anyOrigin || config.allowedOrigins.includes(normalised);
}

/**
 * Step 2: 403 ProxyOriginForbidden unless Fetch Metadata says same-origin/none,
 * the Origin is our own or listed, or neither Origin nor Fetch Metadata is sent.
 * `sameOriginOnly` (the admin prefix, step 6) ignores the listed origins.
 */
export function checkOrigin(
  config: ResolvedConfig,
  request: SvcRequest,
  sameOriginOnly = false,
): Refusal | null {
  const site = request.headers.get('sec-fetch-site');
  if (site === 'same-origin' || site === 'none') return null;
  const origin = request.headers.get('origin');
  if (origin === null && site === null) return null;
  if (origin !== null && isSameOrigin(request)) return null;
  if (sameOriginOnly) {
    return refusal('ProxyOriginForbidden', 'The admin panel answers its own origin only');
  }
  if (isListedOrigin(config, request)) return null;
  return refusal(
    'ProxyOriginForbidden',
    'This origin may not call this deployment; list it in ALLOWED_ORIGINS',
  );
}

/** Step 3: CORS headers for a listed cross-origin caller, else none. */
export function corsHeaders(config: ResolvedConfig, request: SvcRequest): Record<string, string> {
  if (!isListedOrigin(config, request)) return {};
  return {
    'access-control-allow-origin': request.headers.get('origin')!,
    'access-control-allow-credentials': 'true',
    vary: 'origin',
  };
}

/**
 * `answer` carrying `cors` (from {@link corsHeaders}) when it lacks them: SPEC "Checks before any
 * route" 3, a listed cross-origin caller receives the CORS headers on every answer, a 405 (empty
 * body) and a 500 `ProxyHandlerFailed` included, so a browser shows the caller the answer rather
 * than a bare network failure. An answer that already has them, and every answer when `cors` is
 * empty, is returned as it is. A `vary` the answer has keeps its value, `origin` added.
 */
export function withCors<A extends Response | PlainAnswer>(
  answer: A,
  cors: Record<string, string>,
): A {
  if (!('access-control-allow-origin' in cors)) return answer;
  if (!(answer instanceof Response)) {
    if ('access-control-allow-origin' in answer.headers) return answer;
    const vary = answer.headers.vary ? `${answer.headers.vary}, ${cors.vary}` : cors.vary;
    return { ...answer, headers: { ...answer.headers, ...cors, vary } } as A;
  }
  if (answer.headers.has('access-control-allow-origin')) return answer;
  const headers = new Headers(answer.headers);
  for (const [name, value] of Object.entries(cors)) {
    if (name === 'vary') headers.append(name, value);
    else headers.set(name, value);
  }
  const init = { status: answer.status, statusText: answer.statusText, headers };
  return new Response(answer.body, init) as A;
}

/** Step 4: the preflight headers (204 on a claimed path). */
export const PREFLIGHT_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'access-control-allow-methods': 'GET, POST, PATCH, DELETE, OPTIONS',
  'access-control-allow-headers': 'authorization, content-type, x-svc-admin',
  'access-control-max-age': '600',
});
