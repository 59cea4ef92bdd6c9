/**
 * GoTrue's admin API through `@supabase/supabase-js` (`auth.admin.generateLink`), with the
 * service-role key: SPEC "Recovery-link route" ("the link comes from the auth admin API").
 *
 * Never throws and never logs: the caller decides what reaches the log.
 */
import { createClient } from '@supabase/supabase-js';

/** The outcome of one generate-link call: the link, or why there is none. */
export type RecoveryLinkResult =
  | { link: string }
  | { failed: 'unreachable' | 'refused' | 'no_token'; status: number };

/** Asks GoTrue for recovery links. */
export interface AuthAdmin {
  /**
   * `POST <url>/auth/v1/admin/generate_link` `{type:'recovery', email}` with `redirect_to`
   * `redirectTo`, cut after `timeoutMs`. `no_token`: an answer without action_link or
   * hashed_token.
   */
  recoveryLink(email: string, redirectTo: string, timeoutMs: number): Promise<RecoveryLinkResult>;
}

/** Builds the admin client for backend `url` and the service-role `key`; keeps no session. */
export function createAuthAdmin(url: string, key: string, fetchImpl: typeof fetch): AuthAdmin {
  return {
    async recoveryLink(email, redirectTo, timeoutMs) {
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(), timeoutMs);
      const client = createClient(url, key, {
        auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
        global: {
          fetch: (input, init) => fetchImpl(input, { ...init, signal: deadline.signal }),
        },
      });
      try {
        const { data, error } = await client.auth.admin.generateLink({
          type: 'recovery',
          email,
          options: { redirectTo },
        });
        if (error) {
          const status = typeof error.status === 'number' ? error.status : 0;
          return { failed: status === 0 ? 'unreachable' : 'refused', status };
        }
        const link = data?.properties?.action_link;
        if (typeof link !== 'string' || link === '' || !data.properties.hashed_token) {
          return { failed: 'no_token', status: 200 };
        }
        return { link };
      } catch {
        return { failed: 'unreachable', status: 0 };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
