/**
 * Security headers on every response: SPEC "Forwarding rules" (the table).
 */

/** The content-security-policy directives, one per entry. */
const CSP_DIRECTIVES = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: https:",
  "media-src 'self' blob: https:",
  "font-src 'self' data:",
  "connect-src 'self' https: wss:",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "object-src 'none'",
];

/** Header name to value, exactly as the spec's table. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': CSP_DIRECTIVES.join('; '),
  'strict-transport-security': 'max-age=63072000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'camera=(), geolocation=(), payment=(), usb=(), microphone=(self)',
});

/** The table as pairs, built once (every response sets them). */
const SECURITY_PAIRS: readonly (readonly [string, string])[] = Object.entries(SECURITY_HEADERS);

/** Sets every security header on `headers` (overwriting), and returns it. */
export function applySecurityHeaders(headers: Headers): Headers {
  for (const [name, value] of SECURITY_PAIRS) headers.set(name, value);
  return headers;
}

/**
 * A fresh header record: `extra` (lower-case names), then every security header over it (the
 * table wins, as {@link applySecurityHeaders} overwrites).
 */
export function withSecurityRecord(
  extra: Readonly<Record<string, string>>,
): Record<string, string> {
  return { ...extra, ...SECURITY_HEADERS };
}

/**
 * The same response with the security headers set. Headers of a Response
 * from fetch are immutable, so such a response is rebuilt around its body.
 */
export function withSecurityHeaders(response: Response): Response {
  try {
    applySecurityHeaders(response.headers);
    return response;
  } catch {
    const headers = applySecurityHeaders(new Headers(response.headers));
    return new Response(response.body, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  }
}
