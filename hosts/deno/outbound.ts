/**
 * The Deno host's GraphQL forward (SPEC step 21): the same undici transport as the Node hosts
 * (hosts/node/outbound.ts: an EnvHttpProxyAgent when a proxy is set, so HTTPS_PROXY /
 * HTTP_PROXY / NO_PROXY hold as they do for Deno's own fetch). Chosen over Deno's fetch by measurement (issue 13): a fetch
 * with a deadline needs an AbortController and its signal per call, about 10 us of CPU per
 * request on Deno 2.9; undici's dispatch needs neither. The service's other calls keep fetch.
 */
import type { PostText } from '../../src/upstream/outbound.ts';
import { openWebSocketUpstream, type UpstreamFactory } from '../../src/ws/mod.ts';
import { proxyAwarePostText } from '../node/outbound.ts';

/**
 * The host hooks the Deno host passes to createSvcProxy: the forward above, and the relay's
 * upstream leg on Deno's own WebSocket client where no outbound proxy applies (issue 13: about
 * half the memory per idle socket of the `ws` client over Deno's node:net; the relay enforces the
 * upstream frame ceiling itself). Through a proxy the leg stays on `ws` over a CONNECT tunnel.
 */
export function denoOutbound(): { postText: PostText; upstreamSocket: UpstreamFactory } {
  return { postText: proxyAwarePostText(), upstreamSocket: openWebSocketUpstream };
}
