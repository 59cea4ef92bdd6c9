/**
 * The Deno host's GraphQL forward (SPEC step 21): the same undici transport as the Node hosts
 * (hosts/node/outbound.ts, on one EnvHttpProxyAgent, so HTTPS_PROXY / HTTP_PROXY / NO_PROXY hold
 * as they do for Deno's own fetch). Chosen over Deno's fetch by measurement (issue 13): a fetch
 * with a deadline needs an AbortController and its signal per call, about 10 us of CPU per
 * request on Deno 2.9; undici's dispatch needs neither. The service's other calls keep fetch.
 */
import type { PostText } from '../../src/upstream/outbound.ts';
import { proxyAwarePostText } from '../node/outbound.ts';

/** The host hooks the Deno host passes to createSvcProxy. */
export function denoOutbound(): { postText: PostText } {
  return { postText: proxyAwarePostText() };
}
