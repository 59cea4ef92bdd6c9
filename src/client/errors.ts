/**
 * The client library's error classes. Implements SPEC "Client library error classes": every
 * class extends SvcApiError (which extends Error); which answer becomes which class is decided
 * in `classify.ts`.
 */

/** One entry of a GraphQL `errors[]` (SPEC "Error envelope"); unknown keys are kept. */
export interface SvcErrorEntry {
  message: string;
  path?: (string | number)[];
  extensions?: {
    code?: string;
    service?: string;
    traceId?: string;
    errors?: { message?: string; extensions?: { code?: string } }[];
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** Codes that mean the caller's session lapsed or may not act (SPEC: SESSION_ERROR_CODES). */
export const SESSION_ERROR_CODES = ['AuthSessionRequired', 'AuthTenantForbidden'] as const;
/** A code of {@link SESSION_ERROR_CODES}. */
export type SessionErrorCode = (typeof SESSION_ERROR_CODES)[number];

/** The `reason` each session code gives a {@link SvcSessionError}. */
export const SESSION_REASONS: Readonly<Record<SessionErrorCode, SvcSessionReason>> = {
  AuthSessionRequired: 'sessionRequired',
  AuthTenantForbidden: 'forbidden',
};
/** 'sessionRequired': sign in again. 'forbidden': signed in, but no bot of this request's. */
export type SvcSessionReason = 'sessionRequired' | 'forbidden';

/** The upstream's code for a master token that no longer works (SvcAuthError). */
export const AUTH_ERROR_CODES = ['Unauthorized'] as const;

/**
 * Codes that make {@link SvcGraphQLError.isPermissionDenied} true: the upstream's
 * NotEnoughPermissions and the gateway's 403 refusals of a GraphQL request (SPEC "Errors").
 */
export const PERMISSION_DENIED_CODES = [
  'NotEnoughPermissions',
  'BotNotAllowed',
  'ResourceNotAllowed',
  'AccountOperationBlocked',
  'AccountScopeBlocked',
  'AccountStructureBlocked',
  'OperationNotAllowed',
  'OperationNotInRegistry',
  'IntrospectionBlocked',
  'RestPathNotAllowed',
  'AuthTenantForbidden',
] as const;

/** Base of every error the client throws. */
export class SvcApiError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SvcApiError';
  }
}

/** fetch rejected, a timeout, or a socket failure that is not a close event. Carries `cause`. */
export class SvcNetworkError extends SvcApiError {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = 'SvcNetworkError';
  }
}

/**
 * An answer with no parseable envelope, and every 429. `bodySnippet` holds the first 200
 * characters of the body and is kept off `message`. `code` is the envelope's code when one was
 * readable (a 429 TenantBusy), `retryAfterMs` the retry-after header in ms (null when absent).
 */
export class SvcHttpError extends SvcApiError {
  readonly status: number;
  readonly bodySnippet: string;
  readonly code: string | null;
  readonly retryAfterMs: number | null;
  constructor(
    status: number,
    bodySnippet: string,
    extra: { code?: string | null; retryAfterMs?: number | null } = {},
  ) {
    const code = extra.code ?? null;
    super(`HTTP ${status}${code ? ` ${code}` : ''}`);
    this.name = 'SvcHttpError';
    this.status = status;
    this.bodySnippet = bodySnippet;
    this.code = code;
    this.retryAfterMs = extra.retryAfterMs ?? null;
  }
}

/**
 * `errors[]` present, at any HTTP status. `code` is the first code read (nested level first),
 * `traceId` the first `extensions.traceId`, `status` the HTTP status (0 on the socket).
 */
export class SvcGraphQLError extends SvcApiError {
  readonly errors: SvcErrorEntry[];
  readonly data: unknown;
  readonly code: string | null;
  readonly traceId: string | null;
  readonly isPermissionDenied: boolean;
  readonly status: number;
  constructor(
    errors: SvcErrorEntry[],
    data: unknown,
    facts: { code: string | null; traceId: string | null; codes: string[]; status: number },
  ) {
    super(errors[0]?.message || facts.code || 'GraphQL error');
    this.name = 'SvcGraphQLError';
    this.errors = errors;
    this.data = data;
    this.code = facts.code;
    this.traceId = facts.traceId;
    this.status = facts.status;
    this.isPermissionDenied = facts.codes.some((c) =>
      (PERMISSION_DENIED_CODES as readonly string[]).includes(c)
    );
  }
}

/** Some code is Unauthorized: the gateway's master token needs rotation. Never retried. */
export class SvcAuthError extends SvcGraphQLError {
  constructor(...args: ConstructorParameters<typeof SvcGraphQLError>) {
    super(...args);
    this.name = 'SvcAuthError';
  }
}

/** Some code is in {@link SESSION_ERROR_CODES}; `reason` says which. */
export class SvcSessionError extends SvcGraphQLError {
  readonly reason: SvcSessionReason;
  constructor(
    reason: SvcSessionReason,
    ...args: ConstructorParameters<typeof SvcGraphQLError>
  ) {
    super(...args);
    this.name = 'SvcSessionError';
    this.reason = reason;
  }
}
