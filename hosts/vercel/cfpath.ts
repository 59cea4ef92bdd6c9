/**
 * The serverless host's path restoration: the platform rewrites every
 * `/svc/...` path to the one function path (`/api/svc?cfpath=...`, see the
 * vercel.json of hosts/README.md); the function puts the path back before the
 * core sees it. SPEC "Startup behaviour and hosts" (Serverless host), "Errors"
 * (InvalidRequest).
 */
import { type Refusal, refusal } from '../../src/host_api.ts';

/** The query parameter carrying the rewritten path. */
export const PATH_PARAMETER = 'cfpath';
/** The prefix the rewrite removed (vercel.json: `/svc/:cfpath*`). */
export const REWRITTEN_PREFIX = '/svc';

/** The restored request target, or the refusal (400 InvalidRequest). */
export type Restored = { url: string } | { refused: Refusal };

function invalid(why: string): { refused: Refusal } {
  return { refused: refusal('InvalidRequest', `The ${PATH_PARAMETER} parameter ${why}`) };
}

/**
 * Restores `/svc/<path>?<rest of the query>` from a node request target such as
 * `/api/svc?cfpath=graphql&op=Q`. Without the parameter the target passes untouched.
 * Refused (InvalidRequest): the parameter given twice; a value that, decoded (once by the query
 * string, once more per segment), has a leading `/`, a `.` or `..` segment, a `?` or a `#`, or a
 * malformed escape. Every segment is re-encoded (encodeURIComponent).
 */
export function restorePath(target: string): Restored {
  const q = target.indexOf('?');
  if (q === -1) return { url: target };
  const params = new URLSearchParams(target.slice(q + 1));
  const given = params.getAll(PATH_PARAMETER);
  if (given.length === 0) return { url: target };
  if (given.length > 1) return invalid('is given more than once');
  const value = given[0];
  if (value.startsWith('/')) return invalid('must not start with a slash');
  const segments: string[] = [];
  for (const raw of value.split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return invalid('has a malformed escape');
    }
    if (segment === '.' || segment === '..') return invalid('has a dot segment');
    if (/[?#]/.test(segment)) return invalid('has a ? or a #');
    if (segment.startsWith('/') && segments.length === 0) {
      return invalid('must not start with a slash');
    }
    segments.push(encodeURIComponent(segment));
  }
  params.delete(PATH_PARAMETER);
  const rest = params.toString();
  return { url: `${REWRITTEN_PREFIX}/${segments.join('/')}${rest ? `?${rest}` : ''}` };
}
