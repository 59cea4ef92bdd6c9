/**
 * The one answer shape every host writes (`SvcProxy.serve`): status, a header record, and a body
 * that is text, a byte stream or none. The GraphQL route answers with text ({@link PlainAnswer})
 * so a host that writes to a socket itself (the Node host) skips the Web Response and its stream
 * (docs/benchmarks.md "The gateway's own cost"); a route that answers with a Web Response becomes
 * one through {@link answerOf}, its text read back when it was built from text ({@link knownText});
 * {@link toResponse} makes the Web Response a Web-standard host or caller gets.
 */

/**
 * Status, headers (lower-case names, security headers included; a name that repeats, i.e.
 * `set-cookie`, as a list) and the body: text (UTF-8 on the wire), a byte stream, or null for an
 * empty body.
 */
export interface SvcAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[]>>;
  readonly body: string | ReadableStream<Uint8Array> | null;
}

/** An answer built from text: single-valued headers, a text body or none. */
export interface PlainAnswer extends SvcAnswer {
  readonly headers: Readonly<Record<string, string>>;
  /** The body text (UTF-8 on the wire), or null for an empty body. */
  readonly body: string | null;
  /**
   * Set on the gateway's own refusals in the error envelope (src/http/responses.ts
   * `refusalAnswer`), whose media type the GraphQL route negotiates; absent on an upstream answer.
   */
  readonly refusal?: true;
}

/** What a route answers with: a Web Response, or an answer built from text. */
export type Routed = Response | PlainAnswer;

/** Whether `value` is a {@link PlainAnswer} rather than a Web Response. */
export function isPlainAnswer(value: Response | PlainAnswer): value is PlainAnswer {
  return !(value instanceof Response);
}

/**
 * The {@link SvcAnswer} for a route's answer: a PlainAnswer as it is; a Web Response's status,
 * headers (`set-cookie` as a list) and body: its text when it was built from text and is unread,
 * else its stream (null when empty).
 */
export function answerOf(routed: Routed): SvcAnswer {
  if (isPlainAnswer(routed)) return routed;
  const headers: Record<string, string | string[]> = {};
  routed.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = routed.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  return { status: routed.status, headers, body: knownText(routed) ?? routed.body };
}

/** The Web Response for `answer` (a text body readable back through `knownText`). */
export function toResponse(answer: SvcAnswer): Response {
  const init = { status: answer.status, headers: headersInit(answer.headers) };
  if (typeof answer.body === 'string') return new TextResponse(answer.body, init);
  return new Response(answer.body, init);
}

/** The record as it is when every value is single, else as name-value pairs. */
function headersInit(headers: SvcAnswer['headers']): HeadersInit {
  const values = Object.values(headers);
  if (values.every((value) => typeof value === 'string')) return headers as Record<string, string>;
  return Object.entries(headers).flatMap(([name, value]): [string, string][] =>
    typeof value === 'string' ? [[name, value]] : value.map((one) => [name, one])
  );
}

/**
 * A Response built from text by {@link toResponse} (every answer helper of src/http/responses.ts)
 * that carries its text, so {@link answerOf} hands a host the text to write with one `end()`
 * instead of a stream to read, and the access line reads its error code. A complete Response:
 * any other caller reads it as usual.
 */
class TextResponse extends Response {
  readonly bodyText: string;

  constructor(text: string, init: ResponseInit) {
    super(text, init);
    this.bodyText = text;
  }
}

/** The text `response` was built from by {@link toResponse}, while its body is unread. */
export function knownText(response: Response): string | undefined {
  return response instanceof TextResponse && !response.bodyUsed ? response.bodyText : undefined;
}
