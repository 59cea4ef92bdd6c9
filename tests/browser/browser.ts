/**
 * The real browser of the client tests: Debian's chromium (/usr/bin/chromium) driven by
 * playwright-core (no browser download), one per test file. playwright-core's `launch` gives
 * the browser a new empty --user-data-dir of its own (removed on close); each gateway under
 * test gets its own browser context, closed before that gateway stops, so no pooled
 * keep-alive connection holds a host's graceful shutdown open.
 */
import { type Browser, chromium } from 'playwright-core';

/** Where Debian's chromium package puts the browser (installed by `.ci/run`). */
export const CHROMIUM = '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // A page answered by playwright's request routing (the Deno host's pages, serve.ts) has no
  // IP address space, so Chromium's Local Network Access checks take it for a public page and
  // block its WebSocket to loopback (net::ERR_BLOCKED_BY_LOCAL_NETWORK_ACCESS_CHECKS).
  '--disable-features=LocalNetworkAccessChecks',
];

/** Launches chromium headless (see the module comment). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}
