/**
 * Sends one publish call upstream under slowTimeoutMs and reads the outcome (facts.json
 * SvcInstagramPublish "reads" and "onFailure"): published with the media id and permalink, or
 * failed with the first error code (either level), else errors[0].message, else a generic
 * sentence; a timeout and an unreachable upstream are their own sentences. Never throws, never
 * logs.
 */
import { upstreamErrorCodes } from '../../upstream/service_operations.ts';
import { PUBLISH_OPERATION } from './publish_input.ts';

/** What the upstream made of the post. */
export type PublishResult =
  | { outcome: 'published'; mediaId: string | null; permalink: string | null }
  | { outcome: 'failed'; error: string };

/** The upstream call settings: the host's fetch, upstream base, master token, deadline (ms). */
export interface PublishCall {
  fetch: typeof fetch;
  upstream: string;
  token: string;
  timeoutMs: number;
}

const REFUSED = 'The upstream refused the publish';

function readAnswer(json: unknown, field: string): PublishResult {
  const body = json as { data?: Record<string, unknown> | null; errors?: unknown };
  const codes = upstreamErrorCodes(body?.errors);
  const published = body?.data?.[field] as { id?: unknown; permalink?: unknown } | undefined;
  const errors = Array.isArray(body?.errors) ? body.errors : [];
  if (errors.length === 0 && published && typeof published === 'object') {
    return {
      outcome: 'published',
      mediaId: typeof published.id === 'string' ? published.id : null,
      permalink: typeof published.permalink === 'string' ? published.permalink : null,
    };
  }
  if (codes.length > 0) return { outcome: 'failed', error: codes[0] };
  const message = (errors[0] as { message?: unknown } | undefined)?.message;
  return { outcome: 'failed', error: typeof message === 'string' && message ? message : REFUSED };
}

/** POST {upstream}/graphql?op=SvcInstagramPublish with the master token; the outcome. */
export async function sendPublish(
  call: PublishCall,
  document: string,
  field: string,
  variables: Record<string, unknown>,
): Promise<PublishResult> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, call.timeoutMs);
  try {
    const response = await call.fetch(`${call.upstream}/graphql?op=${PUBLISH_OPERATION}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${call.token}` },
      body: JSON.stringify({ query: document, variables }),
      signal: controller.signal,
    });
    const text = await response.text();
    if (response.status !== 200) {
      return { outcome: 'failed', error: `The upstream answered HTTP ${response.status}` };
    }
    try {
      return readAnswer(JSON.parse(text), field);
    } catch {
      return { outcome: 'failed', error: REFUSED };
    }
  } catch {
    return {
      outcome: 'failed',
      error: timedOut
        ? `The upstream did not answer within ${call.timeoutMs} ms`
        : 'The upstream could not be reached',
    };
  } finally {
    clearTimeout(timer);
  }
}
