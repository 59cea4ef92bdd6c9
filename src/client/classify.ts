/**
 * Which answer becomes which error class, and the code helpers. Implements SPEC "Client library
 * error classes" (classification order: session, auth, plain GraphQL) and the code rule of
 * "Error envelope" (every code lookup reads both levels, nested code first). No I/O.
 */
import { CLIENT_DEFAULTS } from './defaults.ts';
import {
  AUTH_ERROR_CODES,
  SESSION_ERROR_CODES,
  SESSION_REASONS,
  type SessionErrorCode,
  SvcApiError,
  SvcAuthError,
  type SvcErrorEntry,
  SvcGraphQLError,
  SvcHttpError,
  SvcSessionError,
} from './errors.ts';

/** Reads `errors` off a value, or takes the value itself when it is an array. */
function entriesOf(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (value !== null && typeof value === 'object') {
    const errors = (value as { errors?: unknown }).errors;
    if (Array.isArray(errors)) return errors;
  }
  return [];
}

function stringAt(value: unknown, key: string): string | null {
  if (value === null || typeof value !== 'object') return null;
  const got = (value as Record<string, unknown>)[key];
  return typeof got === 'string' && got !== '' ? got : null;
}

/**
 * Every code of an error list, per entry the nested codes (`extensions.errors[].extensions.code`)
 * first, then the entry's own `extensions.code`. Duck-typed: takes anything with an `errors`
 * array (an SvcGraphQLError, a raw envelope, a graphql-ws error list) or the array itself;
 * anything else gives []. An SvcHttpError carrying a code gives that code.
 */
export function nestedErrorCodes(value: unknown): string[] {
  const codes: string[] = [];
  for (const entry of entriesOf(value)) {
    const extensions = (entry as { extensions?: unknown } | null)?.extensions;
    for (const nested of entriesOf(extensions)) {
      const code = stringAt((nested as { extensions?: unknown } | null)?.extensions, 'code');
      if (code) codes.push(code);
    }
    const own = stringAt(extensions, 'code');
    if (own) codes.push(own);
  }
  if (value instanceof SvcHttpError && value.code) codes.push(value.code);
  return codes;
}

/** Whether any code of `value` (both levels, see {@link nestedErrorCodes}) is one of `codes`. */
export function hasErrorCode(value: unknown, codes: string | readonly string[]): boolean {
  const wanted: readonly string[] = typeof codes === 'string' ? [codes] : codes;
  return nestedErrorCodes(value).some((c) => wanted.includes(c));
}

/** Whether `value` is a session lapse or refusal (an SvcSessionError, or any value with such a code). */
export function isSessionError(value: unknown): boolean {
  return value instanceof SvcSessionError || hasErrorCode(value, SESSION_ERROR_CODES);
}

/**
 * A sentence for the user: the text `messages` holds for the first code of `err` (nested level
 * first), else for the error's class name (e.g. 'SvcNetworkError', 'SvcHttpError'), else
 * `fallback`. The error's own message is never shown (it may be the upstream's).
 */
export function errorMessageFor(
  err: unknown,
  messages: Readonly<Record<string, string>>,
  fallback: string,
): string {
  for (const code of nestedErrorCodes(err)) {
    if (Object.hasOwn(messages, code)) return messages[code];
  }
  const name = err instanceof Error ? err.name : null;
  if (name && Object.hasOwn(messages, name)) return messages[name];
  return fallback;
}

/**
 * The error for an `errors[]` list, in the spec's order: SvcSessionError when some code is in
 * SESSION_ERROR_CODES (reason 'sessionRequired' wins over 'forbidden'), SvcAuthError when some
 * code is Unauthorized, else SvcGraphQLError. `status` is the HTTP status (0 on the socket).
 */
export function classifyErrors(
  errors: SvcErrorEntry[],
  data: unknown,
  status: number,
): SvcGraphQLError {
  const codes = nestedErrorCodes(errors);
  const facts = {
    codes,
    status,
    code: codes[0] ?? null,
    traceId: errors.map((e) => stringAt(e.extensions, 'traceId')).find((t) => t) ?? null,
  };
  const session = SESSION_ERROR_CODES.find((c) => codes.includes(c));
  if (session) {
    return new SvcSessionError(SESSION_REASONS[session as SessionErrorCode], errors, data, facts);
  }
  if (codes.some((c) => (AUTH_ERROR_CODES as readonly string[]).includes(c))) {
    return new SvcAuthError(errors, data, facts);
  }
  return new SvcGraphQLError(errors, data, facts);
}

/** retry-after (seconds, or an HTTP date) in ms; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** What an HTTP answer to a GraphQL POST means: its data, or the error to throw. */
export type GraphQLOutcome = { ok: true; data: unknown } | { ok: false; error: SvcApiError };

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Classifies one HTTP answer to a GraphQL POST (SPEC "Client library error classes"):
 * every 429 is an SvcHttpError (its envelope code kept); `errors[]` present, at any status,
 * goes through {@link classifyErrors}; a 2xx object carrying `data` is a result; anything else
 * (no parseable envelope) is an SvcHttpError with the first 200 characters as `bodySnippet`.
 */
export function classifyAnswer(
  status: number,
  text: string,
  retryAfter: string | null = null,
): GraphQLOutcome {
  const body = parseJson(text);
  const errors = entriesOf(body);
  const isEnvelope = body !== null && typeof body === 'object' && !Array.isArray(body);
  const snippet = text.slice(0, CLIENT_DEFAULTS.bodySnippetChars);
  const wait = retryAfterMs(retryAfter);
  if (status === 429) {
    const code = nestedErrorCodes(errors)[0] ?? null;
    return { ok: false, error: new SvcHttpError(status, snippet, { code, retryAfterMs: wait }) };
  }
  if (isEnvelope && errors.length > 0) {
    const data = (body as { data?: unknown }).data ?? null;
    return { ok: false, error: classifyErrors(errors as SvcErrorEntry[], data, status) };
  }
  if (isEnvelope && status >= 200 && status < 300 && 'data' in body) {
    return { ok: true, data: (body as { data: unknown }).data };
  }
  return { ok: false, error: new SvcHttpError(status, snippet, { retryAfterMs: wait }) };
}
