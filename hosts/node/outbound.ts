/**
 * Outbound fetch for the Node host: undici's fetch over its EnvHttpProxyAgent,
 * so every call honours HTTPS_PROXY / HTTP_PROXY / NO_PROXY (Node 20's own
 * fetch ignores them). SPEC "Startup behaviour" (outbound proxy).
 */
import { EnvHttpProxyAgent, fetch as undiciFetch } from 'undici';

/** A fetch whose every call goes through the environment's proxy settings. */
export function proxyAwareFetch(): typeof fetch {
  const dispatcher = new EnvHttpProxyAgent();
  return ((input: string | URL | Request, init?: RequestInit) =>
    // deno-lint-ignore no-explicit-any
    undiciFetch(input as any, { ...(init as any), dispatcher })) as unknown as typeof fetch;
}
