/**
 * The static half of the Node server: the app's build (a dist directory).
 * SPEC "Startup behaviour and hosts" (Node server), "Errors" (405 of the static
 * half), "Forwarding rules" (security headers on static files and 404s).
 *
 * - GET and HEAD only; anything else is 405 with `allow: GET, HEAD` and an empty body.
 * - Contained lexically: every segment is decoded once and refused (404) when it is empty of
 *   sense (`.`, `..`, any leading dot), malformed, or carries a slash, backslash or NUL, all
 *   before any filesystem call; then by real path: a file whose real path leaves the dist
 *   directory's real path (a symlink pointing outside) is 404.
 * - content-type by extension (CONTENT_TYPES); `/assets/*` immutable for a year; index.html
 *   no-cache; other files no-cache too (revalidated, never stale after a deploy).
 * - An unknown path whose last segment has no extension is the app router's: index.html.
 *   An unknown asset-shaped path (an extension) is 404.
 */
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, sep } from 'node:path';
import { applySecurityHeaders, methodNotAllowed, plainAnswer } from '../../src/host_api.ts';
import { sendAnswer, sendResponse } from '../node_http/bridge.ts';

/** Content types by lowercased extension; anything else is application/octet-stream. */
export const CONTENT_TYPES: Readonly<Record<string, string>> = Object.freeze({
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.wasm': 'application/wasm',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
  '.mp3': 'audio/mpeg',
  '.pdf': 'application/pdf',
});

/** cache-control of files under /assets/ (hashed names). */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** cache-control of index.html and every other file. */
export const REVALIDATE = 'no-cache';

/** Serves one request from the build; answers every request it gets (404 when nothing fits). */
export type StaticHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * The decoded segments of a URL path, or null when the path must be refused before any
 * filesystem call (traversal, encoded traversal, leading-dot segments, malformed escapes).
 * Empty segments (`//`, a trailing slash) are dropped.
 */
export function safeSegments(rawPath: string): string[] | null {
  const segments: string[] = [];
  for (const raw of rawPath.split('/')) {
    if (raw === '') continue;
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (segment.startsWith('.') || /[/\\\0]/.test(segment)) return null;
    segments.push(segment);
  }
  return segments;
}

/** A regular file (real path, bytes) when its real path stays inside `realRoot`, else null. */
async function containedFile(
  realRoot: string,
  segments: string[],
): Promise<{ path: string; size: number } | null> {
  try {
    const real = await realpath(join(realRoot, ...segments));
    if (!real.startsWith(realRoot + sep)) return null;
    const info = await stat(real);
    return info.isFile() ? { path: real, size: info.size } : null;
  } catch {
    return null;
  }
}

function writeFile(
  req: IncomingMessage,
  res: ServerResponse,
  file: { path: string; size: number },
  cacheControl: string,
): void {
  const headers = applySecurityHeaders(
    new Headers({
      'content-type': CONTENT_TYPES[extname(file.path).toLowerCase()] ?? 'application/octet-stream',
      'content-length': String(file.size),
      'cache-control': cacheControl,
    }),
  );
  res.writeHead(200, Object.fromEntries(headers));
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  const stream = createReadStream(file.path);
  stream.on('error', () => res.destroy());
  res.once('close', () => stream.destroy());
  stream.pipe(res);
}

/** Builds the static handler for `distDir` (resolved once, by real path, on first use). */
export function createStaticHandler(distDir: string): StaticHandler {
  let realRoot: Promise<string> | null = null;
  const notFound = (req: IncomingMessage, res: ServerResponse) =>
    sendAnswer(req, res, plainAnswer(404, 'Not Found'));

  return async (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      req.resume();
      return sendResponse(req, res, methodNotAllowed(['GET', 'HEAD']));
    }
    const rawPath = (req.url ?? '/').split(/[?#]/, 1)[0];
    const segments = safeSegments(rawPath);
    if (segments === null) return notFound(req, res);
    realRoot ??= realpath(distDir);
    const root = await realRoot.catch(() => null);
    if (root === null) return notFound(req, res);
    const file = await containedFile(root, segments);
    if (file !== null) {
      const cache = segments[0] === 'assets' ? IMMUTABLE : REVALIDATE;
      return writeFile(req, res, file, cache);
    }
    const last = segments.at(-1) ?? '';
    if (extname(last) !== '') return notFound(req, res);
    // a directory's own index.html, else the app's (its router owns the path)
    const index = await containedFile(root, [...segments, 'index.html']) ??
      await containedFile(root, ['index.html']);
    if (index === null) return notFound(req, res);
    writeFile(req, res, index, REVALIDATE);
  };
}
