/**
 * Supabase Storage through `@supabase/supabase-js` as the service role (DESIGN "The backend
 * contract": publishing media goes through the Storage API): upload one object, remove one, and
 * its public URL ({url}/storage/v1/object/public/{bucket}/{key}). Never throws, never logs.
 */
import { createClient } from '@supabase/supabase-js';

/** The media bucket of one deployment. */
export interface MediaStorage {
  /** Writes `bytes` at `key` (never overwrites); true when stored. */
  upload(key: string, bytes: Uint8Array, contentType: string): Promise<boolean>;
  /** Removes `key`: 'removed', 'absent' (nothing was there), or 'failed'. */
  remove(key: string): Promise<'removed' | 'absent' | 'failed'>;
  /** The object's public URL. */
  publicUrl(key: string): string;
}

/** Options of {@link createMediaStorage}; `timeoutMs` cuts each call, `cacheSeconds` its caching. */
export interface MediaStorageOptions {
  url: string;
  serviceRoleKey: string;
  bucket: string;
  fetch: typeof fetch;
  timeoutMs: number;
  cacheSeconds: number;
}

/** Builds the bucket client (no session, no timer). */
export function createMediaStorage(options: MediaStorageOptions): MediaStorage {
  const client = createClient(options.url, options.serviceRoleKey, {
    accessToken: () => Promise.resolve(null),
    global: {
      fetch: (input, init) => {
        const signal = AbortSignal.timeout(options.timeoutMs);
        return options.fetch(input, { ...init, signal });
      },
    },
  });
  const bucket = () => client.storage.from(options.bucket);
  return {
    async upload(key, bytes, contentType) {
      try {
        const { error } = await bucket().upload(key, bytes, {
          contentType,
          cacheControl: String(options.cacheSeconds),
          upsert: false,
        });
        return error === null;
      } catch {
        return false;
      }
    },
    async remove(key) {
      try {
        const { data, error } = await bucket().remove([key]);
        if (error !== null) return 'failed';
        return Array.isArray(data) && data.length > 0 ? 'removed' : 'absent';
      } catch {
        return 'failed';
      }
    },
    publicUrl: (key) => bucket().getPublicUrl(key).data.publicUrl,
  };
}
