/**
 * Reading a Host header value: the URL standard's host plus an optional numeric port, and
 * nothing else. SPEC "Checks before any route" 1 (the Host check reads a host, compared with
 * allowedHosts, the hosts of allowedOrigins and of publicUrl); RFC 9110 section 7.2
 * (`Host = uri-host [ ":" port ]`).
 */

/** A parsed Host value: `name` as the URL standard serialises it, `port` without leading zeros. */
export interface HostValue {
  /** e.g. `app.example.com`, `127.0.0.1`, `[::1]` (lowercase, IPv4 in dotted decimal). */
  name: string;
  /** e.g. `8000`; null when the value carries no port. */
  port: string | null;
}

/**
 * One name (a bracketed IPv6 literal, or a run of code points the URL standard allows in a
 * domain: no C0 control, space, DEL, `#`, `%`, `/`, `:`, `<`, `>`, `?`, `@`, `[`, `\`, `]`, `^`,
 * `|`), then optionally `:` and 1 to 5 digits, and nothing after. Percent-escapes are refused
 * rather than decoded: a browser never sends one in Host.
 */
// deno-lint-ignore no-control-regex -- control characters are what the shape refuses
const HOST_SHAPE = /^(\[[0-9A-Fa-f:.]+\]|[^\x00-\x20\x7f#%/:<>?@[\\\]^|]+)(?::(\d{1,5}))?$/;

/**
 * Parses a Host header value. Returns null for anything that is not one host with an optional
 * numeric port: an empty value, whitespace or control characters, userinfo (`a@b`), a path,
 * query or fragment, characters after a bracketed IPv6 literal, a port that is not 1-5 digits
 * or above 65535, and a name the URL standard's host parser refuses (e.g. `1.2.3.4.5`).
 */
export function parseHost(value: string): HostValue | null {
  // most requests repeat the previous Host: one remembered answer spares the parse
  if (value === lastValue) return lastParsed;
  const parsed = parseFresh(value);
  lastValue = value;
  lastParsed = parsed;
  return parsed;
}

let lastValue: string | null = null;
let lastParsed: HostValue | null = null;

function parseFresh(value: string): HostValue | null {
  const shape = HOST_SHAPE.exec(value);
  if (shape === null) return null;
  const port = shape[2] === undefined ? null : String(Number(shape[2]));
  if (port !== null && Number(port) > 65535) return null;
  let name: string;
  try {
    name = new URL(`http://${shape[1]}/`).hostname;
  } catch {
    return null;
  }
  return name === '' ? null : Object.freeze({ name, port });
}

/** `name` or `name:port`, as a parsed value reads. */
export function formatHost(host: HostValue): string {
  return host.port === null ? host.name : `${host.name}:${host.port}`;
}

/** true for localhost, *.localhost, 127.0.0.0/8 and [::1] (a parsed name). */
export function isLoopbackHostName(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost') || name === '[::1]' ||
    /^127(\.\d{1,3}){3}$/.test(name);
}
