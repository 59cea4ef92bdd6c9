/**
 * The `vercel.json` a Vercel deployment of the function uses, built from the one security-headers
 * table. SPEC "Forwarding rules": the security headers are on every response, "and all paths on
 * the serverless host". The function sets them on what it answers; the platform serves the app's
 * own pages and files, so the `headers` rule puts every one of them on every path there too.
 * `deno task build:npm` writes this object as the package's `vercel.json`; hosts/README.md, the
 * README and the package README show the same JSON (tests/hosts/vercel_config_test.ts).
 */
import { SECURITY_HEADERS } from '../../src/host_api.ts';

/** One Vercel header rule: the paths it matches and the headers it sets. */
export interface VercelHeaderRule {
  /** A path pattern; `/(.*)` is every path. */
  source: string;
  /** Header name and value, in the table's order. */
  headers: { key: string; value: string }[];
}

/** The shape of the `vercel.json` the package ships. */
export interface VercelConfig {
  /** `/svc/<path>` to the function, the path carried in `cfpath` (hosts/vercel/cfpath.ts). */
  rewrites: { source: string; destination: string }[];
  /** The function file and its longest run in seconds (a relayed socket lives that long). */
  functions: Record<string, { maxDuration: number }>;
  /** Every security header on every path the platform serves. */
  headers: VercelHeaderRule[];
}

/** The deployment's `vercel.json` (a fresh object on each call). */
export function vercelConfig(): VercelConfig {
  return {
    rewrites: [{ source: '/svc/:cfpath*', destination: '/api/svc?cfpath=:cfpath*' }],
    functions: { 'api/svc.js': { maxDuration: 300 } },
    headers: [{
      source: '/(.*)',
      headers: Object.entries(SECURITY_HEADERS).map(([key, value]) => ({ key, value })),
    }],
  };
}
