/**
 * The hosted backend through `@supabase/supabase-js`: one client per key, RPC as the signed-in
 * caller (the anon key as apikey, the caller's JWT as bearer) or as the service role (its key as
 * both). DESIGN "backend/"; SPEC "Authentication" 2 (svc_my_bot_ids) and "Resource fence"
 * (svc_resource_owner_lookup, svc_resource_bind).
 *
 * Never throws and never logs: an unreachable or slow backend comes back as status 0.
 */
import { createClient } from '@supabase/supabase-js';

/** The outcome of one RPC: the HTTP status (0: unreachable or cut by the deadline), data, error. */
export interface RpcResult {
  /** HTTP status of the answer; 0 when it never arrived (network failure, deadline). */
  status: number;
  /** Parsed JSON body of a 2xx answer, else null. */
  data: unknown;
  /** PostgREST's error body (`{code, message, details, hint}`) of a non-2xx answer, else null. */
  error: { code?: string; message?: string; hint?: string | null } | null;
}

/** Calls database functions over the backend's REST API with one key. */
export interface BackendRpc {
  /**
   * `POST <url>/rest/v1/rpc/<fn>` with `args`, cut after `timeoutMs`. `bearer` (a user JWT)
   * replaces the key as the Authorization bearer; without it the key is the bearer.
   */
  call(
    fn: string,
    args: Record<string, unknown>,
    timeoutMs: number,
    bearer?: string,
  ): Promise<RpcResult>;
}

/**
 * Builds the RPC client for `url` (the backend project, no trailing slash) and `key` (anon or
 * service role). `fetchImpl` is the host's outbound fetch. The client keeps no session, starts
 * no timer and holds no token between calls.
 */
export function createBackendRpc(url: string, key: string, fetchImpl: typeof fetch): BackendRpc {
  const client = createClient(url, key, {
    // No auth client: the bearer is set per call (or is the key itself).
    accessToken: () => Promise.resolve(null),
    global: { fetch: (input, init) => fetchImpl(input, init) },
  });
  return {
    async call(fn, args, timeoutMs, bearer) {
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(), timeoutMs);
      try {
        let builder = client.rpc(fn, args).abortSignal(deadline.signal);
        if (bearer !== undefined) builder = builder.setHeader('Authorization', `Bearer ${bearer}`);
        const { data, error, status } = await builder;
        if (error) return { status, data: null, error };
        return { status, data, error: null };
      } catch {
        return { status: 0, data: null, error: null };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
