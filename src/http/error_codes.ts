/**
 * The one registry of proxy error codes and their HTTP statuses.
 *
 * Implements SPEC "Errors" (every table under it) and the refusal column of
 * "Order in which a GraphQL body is checked". A code is spelled exactly as the
 * spec spells it; a reader can hold this table beside the spec's tables.
 *
 * `null` means the code never travels as an HTTP status (an in-band
 * graphql-transport-ws error frame only).
 */
export const ERROR_STATUS = {
  // Host, origin, host-level
  ProxyHostForbidden: 403,
  ProxyOriginForbidden: 403,
  ProxyRefusedToServe: 503,
  InvalidRequest: 400,
  NotFound: 404,
  // Gate and fences
  AuthSessionRequired: 401,
  AuthTenantForbidden: 403,
  ProxyAuthUnavailable: 503,
  ProxyAuthMisconfigured: 500,
  ProxyTokenMissing: 500,
  ProxyFenceUnavailable: 503,
  BotNotAllowed: 403,
  ResourceNotAllowed: 403,
  ProxyUpstreamUnavailable: 504,
  ProxyHandlerFailed: 500,
  ProxyInternalError: 500,
  // Size and capacity
  RequestTooLarge: 413,
  BatchTooLarge: 413,
  ProxyBusy: 503,
  TenantBusy: 429,
  AdminBodyTooLarge: 413,
  MediaTooLarge: 413,
  // Document checks
  UnsupportedMediaType: 415,
  ProxyMalformedQuery: 400,
  ProxyExtensionsUnsupported: 400,
  OperationNotInRegistry: 403,
  IntrospectionBlocked: 403,
  AccountOperationBlocked: 403,
  AccountScopeBlocked: 403,
  AccountStructureBlocked: 403,
  OperationNotAllowed: 403,
  RestPathNotAllowed: 403,
  TooManySubscriptions: null,
  // Metrics endpoint (not a spec code; docs/operations.md "Metrics")
  MetricsNotAllowed: 403,
  // GraphQL cost limits (not spec codes; checked right after step 11;
  // docs/configuration.md "Document checks and fences")
  QueryTooDeep: 400,
  TooManyAliases: 400,
  TooManyRootFields: 400,
  TooManyDirectives: 400,
  TooManyTokens: 400,
  // Upstream answer over upstreamAnswerMaxBytes (not a spec code; docs/operations.md "Faults")
  UpstreamAnswerTooLarge: 502,
  // Upstream answers rewritten (SPEC "Error envelope")
  UpstreamServiceError: null,
  // Sign-up and bot routes
  ProvisionUnreachable: 502,
  ProvisionRefused: 502,
  WorkspaceFull: 409,
  BotNotFound: 404,
  BadBotName: 422,
  BotRenameFailed: 502,
  BotDeleteUnavailable: 503,
  LastBotInWorkspace: 409,
  BotDeleteFailed: 502,
  // Recovery-link route
  NotEnoughPermissions: 403,
  RecoveryLinkNotEnabled: 501,
  ProxyPublicUrlMissing: 409,
  RecoveryLinkFailed: 502,
  // Admin panel
  AdminMisconfigured: 500,
  AdminSessionRequired: 401,
  AdminBadPassword: 401,
  AdminThrottled: 429,
  AdminRouteNotFound: 404,
  AdminWorkspaceNotFound: 404,
  AdminBotNotFound: 404,
  AdminWorkspaceRequired: 422,
  AdminGrantIncomplete: 422,
  AdminDatabaseUnavailable: 503,
  AdminUpstreamFailed: 502,
  AdminUpstreamUnavailable: 503,
  AdminBotCreateFailed: 502,
  AdminWorkspaceForbidden: 403,
  WorkspaceGoesWithIt: 409,
  // Publish queue
  ProxySocialMisconfigured: 500,
  NotAllowed: 401,
  PostNotFound: 404,
  BadBotId: 422,
  MediaNotFound: 404,
  MediaTypeNotAllowed: 415,
  MediaTypeMismatch: 415,
  MediaQuotaExceeded: 507,
  MediaUploadFailed: 502,
  MediaDeleteFailed: 502,
  /** From the database hints (SPEC "Database hint mapping"); the database's own 4xx travels. */
  PostNotClaimed: 409,
  BadPost: 422,
  CaptionTooLong: 422,
} as const satisfies Record<string, number | null>;

/** A code of the registry. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** The HTTP status of a code that travels over HTTP. */
export type HttpErrorCode = {
  [K in ErrorCode]: (typeof ERROR_STATUS)[K] extends number ? K : never;
}[ErrorCode];

/** A refusal decided by a check: the code and the human sentence. */
export interface Refusal {
  code: ErrorCode;
  message: string;
  /** Extra response headers (retry-after, allow, connection). */
  headers?: Record<string, string>;
}

/** Builds a refusal value; `message` defaults to a sentence naming the code. */
export function refusal(
  code: ErrorCode,
  message: string,
  headers?: Record<string, string>,
): Refusal {
  return headers ? { code, message, headers } : { code, message };
}

/** Status for a code; a code without an HTTP status answers 500. */
export function statusOf(code: ErrorCode): number {
  return ERROR_STATUS[code] ?? 500;
}
