/**
 * `svc-gateway/client`: the browser client library. An ES module with no server code: Web APIs
 * (fetch, WebSocket, URL, AbortSignal) and graphql-ws only. SPEC "Client library error classes"
 * and the client-side rows of "WebSocket close codes". See src/client/README.md.
 */
export {
  AUTH_ERROR_CODES,
  PERMISSION_DENIED_CODES,
  SESSION_ERROR_CODES,
  type SessionErrorCode,
  SvcApiError,
  SvcAuthError,
  type SvcErrorEntry,
  SvcGraphQLError,
  SvcHttpError,
  SvcNetworkError,
  SvcSessionError,
  type SvcSessionReason,
} from './errors.ts';
export {
  classifyAnswer,
  classifyErrors,
  errorMessageFor,
  type GraphQLOutcome,
  hasErrorCode,
  isSessionError,
  nestedErrorCodes,
} from './classify.ts';
export { backoffMs, CLIENT_DEFAULTS } from './defaults.ts';
export type { SvcSessionLatch } from './session_latch.ts';
export type { SvcDocument, SvcTypedDocumentNode, SvcTypedDocumentString } from './document.ts';
export {
  type AccessTokenGetter,
  createSvcClient,
  isRetryable,
  type SvcClient,
  type SvcClientOptions,
  type SvcRequestOptions,
  type SvcRetryOptions,
} from './http.ts';
export {
  createSvcSocket,
  FATAL_CLOSE_CODES,
  shouldRetrySocket,
  socketError,
  type SvcSocketOptions,
} from './socket.ts';
export type { Client as SvcSocket } from 'graphql-ws/client';
export {
  callRoute,
  isNotAvailable,
  readRouteAnswer,
  type RouteContext,
  type RouteRequest,
  SvcNotAvailableError,
  type SvcRoutesOptions,
} from './route_call.ts';
export { createAuthRoutes, type SvcAuthRoutes, type SvcAuthRoutesOptions } from './auth_routes.ts';
export {
  createAdminRoutes,
  type SvcAdminRoutes,
  type SvcAdminRoutesOptions,
} from './admin_routes.ts';
export {
  createPublishingRoutes,
  type SvcPublishingRoutes,
  type SvcPublishingRoutesOptions,
} from './publishing_routes.ts';
export type { UploadProgress } from './upload.ts';
export type * from './route_types.ts';
export type * from '../routes/admin/types.ts';
