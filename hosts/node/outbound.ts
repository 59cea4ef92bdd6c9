/**
 * Outbound calls for the Node host, on undici over its EnvHttpProxyAgent, so every call honours
 * HTTPS_PROXY / HTTP_PROXY / NO_PROXY (Node 20's own fetch ignores them). SPEC "Startup
 * behaviour" (outbound proxy) and step 21.
 *
 * - {@link proxyAwareFetch}: a fetch for the service's own calls (bot fence, backend RPC, ...).
 * - {@link proxyAwarePostText}: the GraphQL forward's transport on `dispatcher.request`: no Web
 *   Request, Response or streams on the hot path, keep-alive connections of the same agent.
 */
import { type Dispatcher, EnvHttpProxyAgent, fetch as undiciFetch } from 'undici';
import type { PostText } from '../../src/upstream/outbound.ts';
import { startDeadline } from '../../src/upstream/outbound.ts';

/** The one agent of this process (shared by fetch and the forward, so one connection pool). */
let shared: EnvHttpProxyAgent | null = null;
function agent(): EnvHttpProxyAgent {
  return shared ??= new EnvHttpProxyAgent();
}

/** A fetch whose every call goes through the environment's proxy settings. */
export function proxyAwareFetch(): typeof fetch {
  const dispatcher = agent();
  return ((input: string | URL | Request, init?: RequestInit) =>
    // deno-lint-ignore no-explicit-any
    undiciFetch(input as any, { ...(init as any), dispatcher })) as unknown as typeof fetch;
}

/** The forward's transport: one POST on the shared agent, answer read whole under the deadline. */
export function proxyAwarePostText(): PostText {
  const dispatcher: Dispatcher = agent();
  return async (url, headers, body, timeoutMs) => {
    const deadline = startDeadline(timeoutMs);
    try {
      const parsed = new URL(url);
      const answer = await dispatcher.request({
        origin: parsed.origin,
        path: parsed.pathname + parsed.search,
        method: 'POST',
        headers,
        body,
        signal: deadline.signal,
      });
      const text = await answer.body.text();
      const type = answer.headers['content-type'];
      const contentType = Array.isArray(type) ? type[0] : type ?? null;
      return { answer: { status: answer.statusCode, contentType, text } };
    } catch {
      return { refused: deadline.refusal() };
    } finally {
      deadline.clear();
    }
  };
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
