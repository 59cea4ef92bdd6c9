/**
 * Checks before any route: host, origin and CORS.
 * SPEC "Checks before any route (also applied to the WebSocket upgrade)" 1-3, 6.
 */
import type { ResolvedConfig } from '../config/resolved.ts';
import { type Refusal, refusal } from './error_codes.ts';
import type { SvcRequest } from './request.ts';

/** The name part of a `host[:port]` value, lowercased, brackets kept for IPv6. */
function hostName(host: string): string {
  const lower = host.toLowerCase();
  if (lower.startsWith('[')) return lower.slice(0, lower.indexOf(']') + 1);
  const colon = lower.lastIndexOf(':');
  return colon === -1 ? lower : lower.slice(0, colon);
}

/** true for localhost, *.localhost, 127.0.0.0/8 and [::1]. */
export function isLoopbackName(host: string): boolean {
  const name = hostName(host);
  return name === 'localhost' || name.endsWith('.localhost') || name === '[::1]' ||
    /^127(\.\d{1,3}){3}$/.test(name);
}

/** Whether the Host header is one an entry answers: an entry without port matches any port. */
function hostMatches(host: string, entry: string): boolean {
  const h = host.toLowerCase();
  if (h === entry) return true;
  const entryHasPort = /:\d+$/.test(entry) && !entry.endsWith(']');
  return !entryHasPort && hostName(h) === entry;
}

/** Step 1: 403 ProxyHostForbidden unless the Host header is answered here. */
export function checkHost(config: ResolvedConfig, request: SvcRequest): Refusal | null {
  const host = request.headers.get('host') ?? new URL(request.url).host;
  if (isLoopbackName(host)) return null;
  if (config.allowedHosts === null) return null;
  if (config.allowedHosts.some((entry) => hostMatches(host, entry))) return null;
  return refusal('ProxyHostForbidden', 'This deployment does not answer to that host');
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
  if (!sameOriginOnly && isListedOrigin(config, request)) return null;
  return refusal('ProxyOriginForbidden', 'This origin may not call this deployment');
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

/** Step 4: the preflight headers (204 on a claimed path). */
export const PREFLIGHT_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'access-control-allow-methods': 'GET, POST, PATCH, DELETE, OPTIONS',
  'access-control-allow-headers': 'authorization, content-type, x-svc-admin',
  'access-control-max-age': '600',
});
