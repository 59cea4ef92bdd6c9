/**
 * An answer the core built from text: status, header pairs, body. The GraphQL route answers with
 * one so a host that writes to a socket itself (the Node host) skips the Web Response and its
 * stream (docs/benchmarks.md "The gateway's own cost"); {@link toResponse} makes the Web Response
 * every other caller gets.
 */
import { textResponse } from './preread.ts';

/** Status, headers (lower-case names, security headers included) and a text body or none. */
export interface PlainAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The body text (UTF-8 on the wire), or null for an empty body. */
  readonly body: string | null;
}

/** Whether `value` is a {@link PlainAnswer} rather than a Web Response. */
export function isPlainAnswer(value: Response | PlainAnswer): value is PlainAnswer {
  return !(value instanceof Response);
}

/** The Web Response for `answer` (its text readable back through `knownText`). */
export function toResponse(answer: PlainAnswer): Response {
  const init = { status: answer.status, headers: answer.headers };
  return answer.body === null ? new Response(null, init) : textResponse(answer.body, init);
}

/** What a route answers with: a Web Response, or an answer built from text. */
export type Routed = Response | PlainAnswer;
