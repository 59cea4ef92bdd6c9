/**
 * Step 21 and the return path of POST /svc/graphql. SPEC "Forwarding rules":
 * exactly content-type and authorization, a body serialised by the proxy from
 * query, operationName and variables, `?op=<name>` and nothing else of the
 * caller's query string; the upstream status passes through; the body is
 * passed back except for the error-sentence rewriting ("Error envelope") and the master token,
 * replaced wherever the upstream echoed it (SPEC "What the service does" 1; docs/operations.md
 * "The master token in answers").
 */
import { scrubAnswerText } from '../graphql/mod.ts';
import { redactText } from '../http/token_redaction.ts';
import type { PlainAnswer } from '../http/answer.ts';
import { withSecurityRecord } from '../http/security_headers.ts';
import type { Refusal } from '../http/error_codes.ts';
import type { CallerSignal } from '../http/request.ts';
import type { PostText, TextAnswer } from './outbound.ts';

/** One entry as it will be forwarded: the proxy's own serialisation source. */
export interface ForwardEntry {
  query: string;
  operationName: string | null;
  variables: Record<string, unknown>;
}

/** What the forward sends: entries, batch shape, budget. */
export interface GraphqlForward {
  upstream: string;
  token: string;
  entries: readonly ForwardEntry[];
  batch: boolean;
  /** ms: timeoutMs, or slowTimeoutMs when a slow publish field is present. */
  timeoutMs: number;
  /**
   * Bytes: a longer answer is refused 502 UpstreamAnswerTooLarge (docs/configuration.md "Upstream",
   * UPSTREAM_ANSWER_MAX_BYTES).
   */
  maxAnswerBytes: number;
  /** The caller's signal: the call is cancelled when it aborts (docs/operations.md "Faults"). */
  caller?: CallerSignal;
  /** Told each answer chunk's size in bytes as it arrives (the memory count; PostCall). */
  onAnswerBytes?: (bytes: number) => void;
}

/** The forwarded body text: only query, operationName (when named) and variables. */
export function serialiseEntries(entries: readonly ForwardEntry[], batch: boolean): string {
  const rebuilt = entries.map((e) => {
    const out: Record<string, unknown> = { query: e.query };
    if (e.operationName !== null) out.operationName = e.operationName;
    if (Object.keys(e.variables).length > 0) out.variables = e.variables;
    return out;
  });
  return JSON.stringify(batch ? rebuilt : rebuilt[0]);
}

/** `{upstream}/graphql?op=<names>`: the parsed documents' names (comma-joined for a batch). */
export function graphqlUrl(upstream: string, entries: readonly ForwardEntry[]): string {
  const names = entries.map((e) => e.operationName).filter((n): n is string => n !== null);
  if (names.length === 0) return `${upstream}/graphql`;
  return `${upstream}/graphql?op=${encodeURIComponent(names.join(','))}`;
}

/** The upstream's answer, read whole under the deadline. */
export type GraphqlAnswer = TextAnswer;

/**
 * Sends the request through `post`; resolves to the answer, or a 504 (timed out, unreachable,
 * caller gone) or 502 (answer too large) refusal.
 */
export function forwardGraphql(
  post: PostText,
  f: GraphqlForward,
): Promise<{ answer: GraphqlAnswer } | { refused: Refusal }> {
  return post(
    graphqlUrl(f.upstream, f.entries),
    {
      'content-type': 'application/json',
      authorization: `Bearer ${f.token}`,
    },
    serialiseEntries(f.entries, f.batch),
    f.timeoutMs,
    { caller: f.caller, maxAnswerBytes: f.maxAnswerBytes, onAnswerBytes: f.onAnswerBytes },
  );
}

/** What a Web Response gives a text body that names no type (kept when the upstream named none). */
const DEFAULT_TEXT_TYPE = 'text/plain;charset=UTF-8';

/**
 * The answer to the caller: upstream status and content-type, rewritten body; every form of
 * `token` the upstream echoed in the content-type or the body is replaced (src/http/
 * token_redaction.ts).
 */
export function upstreamAnswer(
  answer: GraphqlAnswer,
  extra: Record<string, string>,
  token: string | null,
): PlainAnswer {
  const headers = withSecurityRecord(extra);
  headers['content-type'] = redactText(answer.contentType || DEFAULT_TEXT_TYPE, token);
  return { status: answer.status, headers, body: scrubAnswerText(redactText(answer.text, token)) };
}
