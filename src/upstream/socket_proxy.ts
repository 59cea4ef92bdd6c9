/**
 * The upstream socket through the outbound proxy: the relay's upstream leg
 * honours HTTPS_PROXY / HTTP_PROXY / NO_PROXY like every HTTP call (SPEC
 * "Startup behaviour": every call the gateway makes). The proxy for a ws(s)
 * address is the one its http(s) twin would use (proxy-from-env), reached
 * with a CONNECT tunnel (https-proxy-agent).
 */
import { HttpsProxyAgent } from 'https-proxy-agent';
import { getProxyForUrl } from 'proxy-from-env';
import { createWsUpstream, openWsUpstream, type UpstreamFactory } from '../ws/mod.ts';

/** `{upstream}/graphql` as a ws(s) address (http -> ws, https -> wss). */
export function upstreamSocketUrl(upstream: string): string {
  return `${upstream.replace(/^http/i, 'ws')}/graphql`;
}

/**
 * The upstream-socket factory for `wsUrl`: the `ws` client through the environment's proxy when
 * one applies, else `direct` (the host's choice; the `ws` client by default).
 */
export function upstreamSocketFactory(
  wsUrl: string,
  direct: UpstreamFactory = openWsUpstream,
): UpstreamFactory {
  const proxy = getProxyForUrl(wsUrl.replace(/^ws/i, 'http'));
  return proxy ? createWsUpstream({ agent: new HttpsProxyAgent(proxy) }) : direct;
}
