/**
 * BASE_PATH for the Node server: everything (health, every proxied route, the
 * socket, the static files) is mounted under one sub-path; a path outside it is
 * 404. SPEC "Startup behaviour and hosts" (Node server).
 */
import type { IncomingMessage } from 'node:http';

/**
 * The normalised base path ('' for none): a leading slash, no trailing slash.
 * Throws for a value with a query, fragment, backslash or a `.`/`..` segment.
 */
export function normaliseBasePath(raw: string | undefined): string {
  const trimmed = (raw ?? '').trim().replace(/\/+$/, '');
  if (trimmed === '') return '';
  const path = trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
  if (/[?#\\]/.test(path) || path.split('/').some((s) => s === '.' || s === '..')) {
    throw new Error(`BASE_PATH must be a plain path such as /app (got ${JSON.stringify(raw)})`);
  }
  return path;
}

/**
 * Strips `base` from `req.url` in place. Returns false (url untouched) when the request is
 * outside the base path: the caller answers 404 (or destroys an upgrade).
 */
export function enterBasePath(req: IncomingMessage, base: string): boolean {
  if (base === '') return true;
  const url = req.url ?? '/';
  if (!url.startsWith(base)) return false;
  const rest = url.slice(base.length);
  if (rest !== '' && !/^[/?#]/.test(rest)) return false;
  req.url = rest.startsWith('/') ? rest : `/${rest}`;
  return true;
}
