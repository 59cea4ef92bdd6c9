/**
 * A gateway whose origin serves the browser pages, on either host. Node: the real bin
 * (`node npm/bin/svc-gateway.js --dist <dir>`): health, the proxy, then the host's static
 * serving of the dist directory. Deno: the Deno host (no static serving of its own) in this
 * process; the page's non-/svc/ requests are answered from the dist directory by the
 * browser's request routing, so the page still lives on the gateway's origin and every /svc/
 * request goes to the real gateway untouched.
 */
import { readFileSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import type { Env } from '../../mod.ts';
import { ROOT, startChildProcess } from '../../scripts/host_process.ts';
import { type HostKind, startGateway } from '../helpers/gateway.ts';
import type { HarnessGlobals } from './page_types.ts';

/** A gateway that serves the pages of `dist`. */
export interface PageGateway {
  kind: HostKind;
  url: string;
  /** Opens `path` (e.g. '/harness.html') in a new page of `context`. */
  open(context: BrowserContext, path: string): Promise<Page>;
  stop(): Promise<void>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** Starts the gateway on `kind` with `env` (environment only), serving `dist`. */
export async function startPageGateway(
  kind: HostKind,
  env: Env,
  dist: string,
): Promise<PageGateway> {
  if (kind === 'node') {
    const child = await startChildProcess({
      command: ['node', `${ROOT}npm/bin/svc-gateway.js`, '--dist', dist],
      env: { ...env as Record<string, string>, HOST: '127.0.0.1', PORT: '0' },
      ready: /listening on (http:\/\/\S+)/,
    });
    if (!child.lines.some((line) => line.includes('static files from'))) {
      await child.stop();
      throw new Error(`the Node host did not serve ${dist}:\n${child.lines.join('\n')}`);
    }
    return {
      kind,
      url: child.url,
      open: (context, path) => openPage(context, child.url, path, null),
      stop: () => child.stop(),
    };
  }
  const gateway = await startGateway('deno', {}, env);
  return {
    kind,
    url: gateway.url,
    open: (context, path) => openPage(context, gateway.url, path, dist),
    stop: () => gateway.stop(),
  };
}

/** Answers the page's requests for `origin` outside /svc/ from `dist`. */
async function routeFromDist(page: Page, origin: string, dist: string): Promise<void> {
  await page.route((url) => url.origin === origin && !url.pathname.startsWith('/svc/'), (route) => {
    const asked = normalize(new URL(route.request().url()).pathname);
    const path = asked === '/' ? '/index.html' : asked;
    try {
      const body = readFileSync(join(dist, path));
      return route.fulfill({
        status: 200,
        body,
        contentType: TYPES[extname(path)] ?? 'text/plain',
      });
    } catch {
      return route.fulfill({ status: 404, body: 'not found' });
    }
  });
}

/** Opens `origin + path`; with `dist`, the page's own files come from it (see routeFromDist). */
async function openPage(
  context: BrowserContext,
  origin: string,
  path: string,
  dist: string | null,
): Promise<Page> {
  const page = await context.newPage();
  if (dist) await routeFromDist(page, origin, dist);
  await page.goto(`${origin}${path}`);
  if (path === '/harness.html') {
    await page.waitForFunction(() =>
      typeof (globalThis as unknown as HarnessGlobals).svcTest === 'object'
    );
  }
  return page;
}
