/**
 * Supabase Storage through `@supabase/supabase-js` as the service role (DESIGN "The backend
 * contract": publishing media goes through the Storage API): upload one object, remove one, its
 * public URL ({url}/storage/v1/object/public/{bucket}/{key}), and the bucket's own state (exists,
 * public). Never throws, never logs.
 */
import { createClient } from '@supabase/supabase-js';

import type { MediaBucketState } from './types.ts';

/** The outcome of one upload: stored, the bucket does not exist, or any other failure. */
export type UploadOutcome = 'stored' | 'missingBucket' | 'failed';

/** The media bucket of one deployment. */
export interface MediaStorage {
  /** The bucket's name (PUBLISHING_MEDIA_BUCKET). */
  readonly bucket: string;
  /** Writes `bytes` at `key` (never overwrites). */
  upload(key: string, bytes: Uint8Array, contentType: string): Promise<UploadOutcome>;
  /** Removes `key`: 'removed', 'absent' (nothing was there), or 'failed'. */
  remove(key: string): Promise<'removed' | 'absent' | 'failed'>;
  /** The object's public URL. */
  publicUrl(key: string): string;
  /** The bucket's state (one GET /storage/v1/bucket/<name>). */
  state(): Promise<MediaBucketState>;
}

/**
 * The answer as the runtime's own Response: supabase-js reads a refusal's status and body only
 * from an `instanceof Response` (the Node host's fetch answers undici's Response class, which is
 * not the global one), else it reports an unknown error without them.
 */
function asGlobalResponse(answer: Response): Response {
  if (answer instanceof Response) return answer;
  const response = answer as Pick<Response, 'body' | 'status' | 'statusText' | 'headers'>;
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** Storage's answer for an unknown bucket: HTTP 400 (404 in newer servers), statusCode '404'. */
function bucketNotFound(error: unknown): boolean {
  const e = error as { statusCode?: unknown; status?: unknown; message?: unknown } | null;
  return e?.statusCode === '404' || e?.status === 404 ||
    (typeof e?.message === 'string' && /bucket not found/i.test(e.message));
}

/**
 * Options of {@link createMediaStorage}: `timeoutMs` cuts each upload or delete, `checkTimeoutMs`
 * the bucket's state (ms); `cacheSeconds` is the objects' caching.
 */
export interface MediaStorageOptions {
  url: string;
  serviceRoleKey: string;
  bucket: string;
  fetch: typeof fetch;
  timeoutMs: number;
  checkTimeoutMs: number;
  cacheSeconds: number;
}

/** A supabase-js client as the service role whose every call is cut after `timeoutMs`. */
function serviceClient(options: MediaStorageOptions, timeoutMs: number) {
  return createClient(options.url, options.serviceRoleKey, {
    accessToken: () => Promise.resolve(null),
    global: {
      fetch: async (input, init) => {
        const signal = AbortSignal.timeout(timeoutMs);
        return asGlobalResponse(await options.fetch(input, { ...init, signal }));
      },
    },
  });
}

/** Builds the bucket client (no session, no timer). */
export function createMediaStorage(options: MediaStorageOptions): MediaStorage {
  const client = serviceClient(options, options.timeoutMs);
  const bucket = () => client.storage.from(options.bucket);
  return {
    bucket: options.bucket,
    async upload(key, bytes, contentType) {
      try {
        const { error } = await bucket().upload(key, bytes, {
          contentType,
          cacheControl: String(options.cacheSeconds),
          upsert: false,
        });
        if (error === null) return 'stored';
        return /bucket not found/i.test(error.message) ? 'missingBucket' : 'failed';
      } catch {
        return 'failed';
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
    async state() {
      try {
        const checker = serviceClient(options, options.checkTimeoutMs);
        const { data, error } = await checker.storage.getBucket(options.bucket);
        if (error !== null) return bucketNotFound(error) ? 'missing' : 'unreachable';
        return data?.public === true ? 'ready' : 'private';
      } catch {
        return 'unreachable';
      }
    },
  };
}
