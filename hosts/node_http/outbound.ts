/**
 * Outbound calls for the Node host, on undici over its EnvHttpProxyAgent, so every call honours
 * HTTPS_PROXY / HTTP_PROXY / NO_PROXY (Node 20's own fetch ignores them). SPEC "Startup
 * behaviour" (outbound proxy) and step 21.
 *
 * - {@link proxyAwareFetch}: a fetch for the service's own calls (bot fence, backend RPC, ...).
 * - {@link proxyAwarePostText}: the GraphQL forward's transport on `dispatcher.dispatch`: no Web
 *   Request, Response, streams or abort signal on the hot path, keep-alive connections of the
 *   same agent.
 */
import process from 'node:process';
import { Agent, type Dispatcher, EnvHttpProxyAgent, fetch as undiciFetch } from 'undici';
import type { PostText } from '../../src/host_api.ts';
import { dispatchPostText } from './dispatch_post.ts';

/**
 * The one agent of this process (shared by fetch and the forward, so one connection pool): the
 * EnvHttpProxyAgent when a proxy variable is set, else a plain Agent, which is what the
 * EnvHttpProxyAgent would route every call to anyway, without its URL parse per call
 * (docs/benchmarks.md "What the common path leaves out").
 */
let shared: Dispatcher | null = null;
function agent(): Dispatcher {
  if (shared) return shared;
  shared = proxyVariableSet() ? new EnvHttpProxyAgent({ noProxy: noProxyVariable() }) : new Agent();
  return shared;
}

/** Whether HTTP_PROXY or HTTPS_PROXY (either case) is set, as EnvHttpProxyAgent reads them. */
function proxyVariableSet(): boolean {
  const env = process.env;
  return Boolean(env.http_proxy ?? env.HTTP_PROXY) || Boolean(env.https_proxy ?? env.HTTPS_PROXY);
}

/**
 * NO_PROXY as undici reads it (no_proxy first), read once when the agent is made: left unset,
 * the agent reads the environment again on every call (docs/benchmarks.md "What the common path
 * leaves out"). HTTP_PROXY and HTTPS_PROXY the agent itself reads once, when it is made.
 */
function noProxyVariable(): string {
  return process.env.no_proxy ?? process.env.NO_PROXY ?? '';
}

/** A fetch whose every call goes through the environment's proxy settings. */
export function proxyAwareFetch(): typeof fetch {
  const dispatcher = agent();
  return ((input: string | URL | Request, init?: RequestInit) =>
    // deno-lint-ignore no-explicit-any
    undiciFetch(input as any, { ...(init as any), dispatcher })) as unknown as typeof fetch;
}

/** The forward's transport: one POST on the shared agent (see dispatch_post.ts). */
export function proxyAwarePostText(): PostText {
  return dispatchPostText(agent());
}

/**
 * The host hooks every Node host passes to createSvcProxy, under the app's `options`: `fetch`
 * and `postText` on the shared agent, except that an app that brings its own `fetch` (and no
 * `postText`) keeps its fetch for the forward too.
 */
export function nodeOutbound(
  options: { fetch?: typeof fetch; postText?: PostText } = {},
): { fetch: typeof fetch; postText?: PostText } {
  if (options.fetch && !options.postText) return { fetch: options.fetch };
  return {
    fetch: options.fetch ?? proxyAwareFetch(),
    postText: options.postText ?? proxyAwarePostText(),
  };
}
