/**
 * The media type of a refusal on the GraphQL route, negotiated as the GraphQL over HTTP
 * specification defines it (its "Accept" and "Status Codes" sections): a request whose Accept prefers
 * `application/graphql-response+json` gets its refusals in it; every other request gets
 * `application/json`, as before. The body (the error envelope, SPEC "Error envelope") and the
 * status are the same either way: a refusal carries no `data`, and that specification's rule for
 * such an answer in `application/graphql-response+json` is a 4xx or 5xx status, which every
 * refusal has. Clients that read a non-2xx body only in that media type (Apollo Client 4) then
 * see the code. docs/routes.md "Refusals and their media type".
 */
import type { PlainAnswer } from './answer.ts';

/** The GraphQL over HTTP specification's response media type. */
export const GRAPHQL_RESPONSE_MEDIA = 'application/graphql-response+json';

/** The content-type a negotiated refusal carries. */
export const GRAPHQL_RESPONSE_TYPE = `${GRAPHQL_RESPONSE_MEDIA}; charset=utf-8`;

/** One media range of an Accept header: its lower-cased type, its quality, its place. */
interface Range {
  type: string;
  q: number;
  at: number;
}

/** The quality of a range's parameters (`q=0.9`); 1 when absent, 0 when unreadable. */
function qualityOf(params: string[]): number {
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq === -1 || param.slice(0, eq).trim().toLowerCase() !== 'q') continue;
    const q = Number(param.slice(eq + 1).trim());
    return Number.isFinite(q) && q >= 0 && q <= 1 ? q : 0;
  }
  return 1;
}

/** The ranges of an Accept header, in order (RFC 9110 section 12.5.1). */
function rangesOf(accept: string): Range[] {
  return accept.split(',').map((part, at) => {
    const [type, ...params] = part.split(';');
    return { type: type.trim().toLowerCase(), q: qualityOf(params), at };
  });
}

/** The range that applies to `type`: the most specific one matching it, or null. */
function rangeFor(ranges: Range[], type: string): Range | null {
  const [major] = type.split('/');
  return ranges.find((r) => r.type === type) ?? ranges.find((r) => r.type === `${major}/*`) ??
    ranges.find((r) => r.type === '*/*') ?? null;
}

/**
 * Whether a request with this Accept header prefers `application/graphql-response+json`: it is
 * listed by name with a quality above 0, and `application/json` (or the wildcard that covers it)
 * is absent, has a lower quality, or the same quality listed later. An absent header, a header
 * naming only wildcards, and any other header answer false (`application/json`).
 */
export function prefersGraphqlResponse(accept: string | null): boolean {
  if (accept === null || !accept.toLowerCase().includes(GRAPHQL_RESPONSE_MEDIA)) return false;
  const ranges = rangesOf(accept);
  const graphql = ranges.find((r) => r.type === GRAPHQL_RESPONSE_MEDIA);
  if (!graphql || graphql.q <= 0) return false;
  const json = rangeFor(ranges, 'application/json');
  if (json === null || json.q < graphql.q) return true;
  return json.q === graphql.q && graphql.at < json.at;
}

/**
 * `answer` (a refusal) in the media type `accept` asks for: itself when that is `application/json`,
 * else a copy whose content-type is {@link GRAPHQL_RESPONSE_TYPE}. Body and status unchanged.
 */
export function negotiatedRefusal(answer: PlainAnswer, accept: string | null): PlainAnswer {
  if (!prefersGraphqlResponse(accept)) return answer;
  return { ...answer, headers: { ...answer.headers, 'content-type': GRAPHQL_RESPONSE_TYPE } };
}
