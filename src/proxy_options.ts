/**
 * The options `createSvcProxy(options, env)` takes: the configuration (SPEC "Limits" > "Options"
 * and the gateway's own settings, src/config/options.ts `ConfigOptions`) and the host hooks, which
 * hand the core a transport or a sink instead of configuring it. The hooks live here, above the
 * layers they name (src/README.md "Imports run downwards"), so the configuration imports nothing
 * of the upstream or the relay.
 */
import type { ConfigOptions } from './config/options.ts';
import type { PostText } from './upstream/outbound.ts';
import type { UpstreamFactory } from './ws/mod.ts';

export type { Env } from './config/options.ts';

/** What a host may hand the core besides its configuration (none is a spec option). */
export interface HostHooks {
  /** Host hook, not a spec option: the fetch used for every outbound HTTP call. */
  fetch?: typeof fetch;
  /**
   * Host hook, not a spec option: the GraphQL forward's transport (default: one over `fetch`).
   * The Node host passes one on undici's dispatcher, which honours the same proxy variables.
   */
  postText?: PostText;
  /**
   * Host hook, not a spec option: opens the relay's upstream leg when no outbound proxy applies
   * to it (default: the `ws` client; through a proxy it is always `ws` over a CONNECT tunnel).
   * The Deno host passes the `ws` client too (hosts/deno/outbound.ts: it can pause the leg).
   */
  upstreamSocket?: UpstreamFactory;
  /**
   * Host hook, not a spec option: a worker deployment's scrape (docs/operations.md "Metrics of a
   * worker deployment"). Given this process's exposition text, resolves to the deployment's
   * (the other workers' texts merged in, aggregate.ts). Absent: the scrape answers this process.
   */
  metricsDeployment?: (own: string) => Promise<string>;
  /** Host hook, not a spec option: where log lines go (default console.log). */
  log?: (line: string) => void;
}

/** Everything `createSvcProxy` takes: the configuration and the host hooks. */
export interface SvcProxyOptions extends ConfigOptions, HostHooks {}
