/**
 * What every host shares at startup: the environment bag (process
 * environment over an env file) and the bind address rules.
 * SPEC "Startup behaviour and hosts". Uses node: built-ins both runtimes have.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { isLoopbackName } from '../src/host_api.ts';

/** The env file's variables with the process environment winning. A missing file is no error. */
export function loadEnv(
  processEnv: Record<string, string | undefined>,
  file = '.env',
): Record<string, string | undefined> {
  const fromFile = existsSync(file) ? parseEnv(readFileSync(file, 'utf8')) : {};
  return { ...fromFile, ...processEnv };
}

/** HOST (default 127.0.0.1) and PORT (default 8000; 0 picks a free port). */
export function bindAddress(
  env: Record<string, string | undefined>,
): { host: string; port: number } {
  const host = env.HOST?.trim() || '127.0.0.1';
  const rawPort = env.PORT?.trim();
  const port = rawPort && /^\d+$/.test(rawPort) ? Number(rawPort) : 8000;
  return { host, port };
}

/** The address a host listens on as a URL: `http://host:port`, an IPv6 host in brackets. */
export function listenUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Whether a bind address only accepts loopback connections (sets option loopbackOnly). */
export function isLoopbackBind(host: string): boolean {
  return isLoopbackName(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);
}
