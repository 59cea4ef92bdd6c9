/**
 * The Deno host's GraphQL forward (SPEC step 21): the same undici transport as the Node hosts
 * (hosts/node_http/outbound.ts: an EnvHttpProxyAgent when a proxy is set, so HTTPS_PROXY /
 * HTTP_PROXY / NO_PROXY hold as they do for Deno's own fetch). Chosen over Deno's fetch by
 * measurement: a fetch with a deadline needs an AbortController and its signal per call; undici's
 * dispatch needs neither (docs/benchmarks.md "What the common path leaves out"). The service's
 * other calls keep fetch.
 */
import { openWsUpstream, type PostText, type UpstreamFactory } from '../../src/host_api.ts';
import { proxyAwarePostText } from '../node_http/outbound.ts';

/**
 * The host hooks the Deno host passes to createSvcProxy: the forward above, and the relay's
 * upstream leg on the `ws` client over Deno's node:net (docs/operations.md "Slow and vanished peers
 * on the relay"). Deno's own WebSocket client cannot stop reading: with it, a browser that stops
 * reading makes the gateway buffer everything the upstream sends. `ws` can pause the leg, so TCP
 * pushes back to the upstream. Deno's `WebSocketStream` can pause as well but is no cheaper per
 * frame and heavier per idle socket. The figures that decided it: docs/benchmarks.md "The Deno
 * host's upstream leg".
 */
export function denoOutbound(): { postText: PostText; upstreamSocket: UpstreamFactory } {
  return { postText: proxyAwarePostText(), upstreamSocket: openWsUpstream };
}
