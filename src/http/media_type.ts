/**
 * The media type of the GraphQL route's answers, negotiated as the GraphQL over HTTP
 * specification defines it (its "Accept" and "Status Codes" sections): a request whose Accept
 * prefers `application/graphql-response+json` gets its refusals in it, and an upstream answer
 * that may be labelled so; every other request gets `application/json`, as before. Bodies and
 * statuses are the same either way. A refusal (the error envelope, SPEC "Error envelope") carries
 * no `data`, and that specification's rule for such an answer in
 * `application/graphql-response+json` is a 4xx or 5xx status, which every refusal has; an
 * upstream answer is relabelled only when its status fits those rules (2xx with a top-level
 * `data`, 4xx or 5xx with `errors` and no `data`), so no answer is given a type it breaks.
 * Clients that read a non-2xx body only in that media type (Apollo Client 4) then see the code.
 * docs/routes.md "Refusals and their media type".
 */
import type { PlainAnswer } from './answer.ts';
import { stringEnd } from './json_depth.ts';

/** The GraphQL over HTTP specification's response media type. */
export const GRAPHQL_RESPONSE_MEDIA = 'application/graphql-response+json';

/** The content-type a negotiated answer carries (a refusal, or a relabelled upstream answer). */
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

/** Whether `type` (a content-type value) is `application/json`, parameters aside. */
function isJsonType(type: string | undefined): boolean {
  if (type === undefined) return false;
  const semi = type.indexOf(';');
  return (semi === -1 ? type : type.slice(0, semi)).trim().toLowerCase() === 'application/json';
}

/** The index of the first character of `text` at or past `i` that is not JSON whitespace. */
function skipSpace(text: string, i: number): number {
  while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  return i;
}

/**
 * Whether a JSON text is an object with a member named `name` (written plainly, no escapes) at
 * its top level. One pass, no parse, no allocation; it stops at that member. Text that is no
 * object (a batch's array, not JSON) answers false.
 */
export function hasTopLevelMember(text: string, name: string): boolean {
  let i = skipSpace(text, 0);
  if (text[i] !== '{') return false;
  let depth = 0;
  for (; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(text, i); // the text's length when the string never closes
      const key = depth === 1 && text[skipSpace(text, end)] === ':';
      if (key && end - i === name.length + 2 && text.startsWith(name, i + 1)) return true;
      i = end - 1;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  return false;
}

/**
 * Whether an upstream answer may be labelled `application/graphql-response+json` under that
 * type's status rules: a 2xx answer carrying a top-level `data`, or a 4xx/5xx one carrying
 * `errors` and no `data`.
 */
function fitsGraphqlResponse(status: number, text: string): boolean {
  if (status >= 200 && status <= 299) return hasTopLevelMember(text, 'data');
  if (status < 400 || status > 599) return false;
  return hasTopLevelMember(text, 'errors') && !hasTopLevelMember(text, 'data');
}

/**
 * An upstream answer on the GraphQL route in the media type `accept` prefers: relabelled
 * {@link GRAPHQL_RESPONSE_TYPE} when that is `application/graphql-response+json`, the upstream
 * labelled it `application/json`, and its status fits that type's rules (a 2xx answer with
 * `data`, a 4xx/5xx one with `errors` and no `data`); else as it is. Body and status unchanged.
 */
export function negotiatedResult(answer: PlainAnswer, accept: string | null): PlainAnswer {
  if (answer.body === null || !isJsonType(answer.headers['content-type'])) return answer;
  if (!prefersGraphqlResponse(accept) || !fitsGraphqlResponse(answer.status, answer.body)) {
    return answer;
  }
  return { ...answer, headers: { ...answer.headers, 'content-type': GRAPHQL_RESPONSE_TYPE } };
}
