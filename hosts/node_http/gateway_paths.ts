/**
 * Which request paths are the gateway's, for the Node-flavoured hosts (the Node server, the Vite
 * plugin, the serverless function). SPEC "Endpoints": "A route that is not mounted is not
 * claimed: the host answers its own 404, and clients read that as absence"; so a path under the
 * gateway's prefix (where health lives, `/svc` by default) or under any configured route path is
 * answered by the proxy or by the host's 404, never by an app's fallback to index.html.
 */
import type { ResolvedConfig } from '../../src/host_api.ts';

/** Whether `path` is `prefix` or below it. */
export function under(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/** The path of a node request URL (no query), without building a URL object. */
export function pathOf(url: string | undefined): string {
  const raw = url ?? '/';
  const end = raw.search(/[?#]/);
  return end === -1 ? raw : raw.slice(0, end);
}

/**
 * Whether a path may be the proxy's at all (health, GraphQL, socket, metrics, api, auth, admin,
 * publishing prefixes). A path outside all of them goes to `next` without a Request being built,
 * so its body stays unread for the host's own middleware.
 */
export function mayClaim(c: ResolvedConfig, path: string): boolean {
  return path === c.healthPath || path === c.httpPath || path === c.wsPath ||
    path === c.metricsPath || under(path, c.apiPath) || under(path, c.authPath) ||
    under(path, c.adminPath) || under(path, c.publishingPath);
}

/** The gateway's prefix: the folder health lives in (`/svc`). */
function prefixOf(c: ResolvedConfig): string {
  return c.healthPath.slice(0, c.healthPath.lastIndexOf('/')) || c.healthPath;
}

function reserved(c: ResolvedConfig, path: string): boolean {
  return under(path, prefixOf(c)) || under(path, c.httpPath) || under(path, c.wsPath) ||
    under(path, c.metricsPath) || mayClaim(c, path);
}

/** `path` with its escapes decoded and repeated slashes folded; `path` itself when malformed. */
function decodedPath(path: string): string {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch { /* a malformed escape: the raw path is what a server would read */ }
  return decoded.replace(/\/{2,}/g, '/');
}

/**
 * Whether a request path (raw, no query) is the gateway's: under its prefix or a configured route
 * path, as sent or once decoded (`/%73vc/x`, `//svc/x`). Such a path the proxy did not claim is
 * the host's 404, whatever the method.
 */
export function isGatewayPath(c: ResolvedConfig, path: string): boolean {
  return reserved(c, path) || reserved(c, decodedPath(path));
}
