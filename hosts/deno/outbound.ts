/**
 * The Deno host's GraphQL forward (SPEC step 21): the same undici transport as the Node hosts
 * (hosts/node_http/outbound.ts: an EnvHttpProxyAgent when a proxy is set, so HTTPS_PROXY /
 * HTTP_PROXY / NO_PROXY hold as they do for Deno's own fetch). Chosen over Deno's fetch by
 * measurement (docs/benchmarks.md "The gateway's own cost"): a fetch with a deadline needs an
 * AbortController and its signal per call, about 10 us of CPU per request on Deno 2.9; undici's
 * dispatch needs neither. The service's other calls keep fetch.
 */
import { openWsUpstream, type PostText, type UpstreamFactory } from '../../src/host_api.ts';
import { proxyAwarePostText } from '../node_http/outbound.ts';

/**
 * The host hooks the Deno host passes to createSvcProxy: the forward above, and the relay's
 * upstream leg on the `ws` client over Deno's node:net (docs/operations.md "Slow and vanished peers
 * on the relay"). Deno's own WebSocket client took about half the memory per idle socket
 * (docs/benchmarks.md "WebSocket relay"), but it cannot stop reading: with it, a browser that stops
 * reading made the gateway buffer everything the upstream sent (about 25 MB/s per stalled socket).
 * `ws` can pause the leg, so TCP pushes back to the upstream; the figures that decided it are in
 * docs/benchmarks.md "WebSocket relay". Deno's `WebSocketStream` can pause as well but measured no
 * cheaper per frame and heavier per idle socket (docs/benchmarks.md "The Deno host's upstream leg").
 */
export function denoOutbound(): { postText: PostText; upstreamSocket: UpstreamFactory } {
  return { postText: proxyAwarePostText(), upstreamSocket: openWsUpstream };
}
