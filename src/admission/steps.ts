/**
 * The check order as two tables: the HTTP POST body and the socket's
 * subscribe frame. SPEC "Order in which a GraphQL body is checked": "On the
 * socket, a subscribe frame runs the same chain with the registry first";
 * the socket's gate, token and capacity were settled when it was admitted,
 * but each subscribe still spends one request of its tenant (step 4), so a
 * socket is no way around the tenant's minute. Step 21 is the forward itself
 * (routes/graphql.ts).
 */
import type { Step } from './chain.ts';
import * as d from './document_steps.ts';
import * as f from './fence_steps.ts';
import * as m from './memory_steps.ts';
import type { GraphqlState } from './graphql_state.ts';
import * as r from './request_steps.ts';
import * as u from './upload_steps.ts';

/** Steps 12 to 20, shared by both tables. */
const DOCUMENT_AND_FENCE: readonly Step<GraphqlState>[] = [
  d.introspection, // 12
  d.accountOperation, // 13
  d.accountScope, // 14
  d.accountStructure, // 15
  d.allowlist, // 16
  d.botsAreStrings, // 17
  f.fenceResolvable, // 18
  f.botsBelong, // 19
  f.resourcesBelong, // 20
];

/** POST /svc/graphql. */
export const HTTP_STEPS: readonly Step<GraphqlState>[] = [
  r.contentType, // 1
  r.gate, // 2
  r.token, // 3
  r.tenantBudget, // 4
  r.concurrency, // 5
  r.bodySize, // 6
  r.bodyShape, // 7
  r.batchSize, // 8
  r.extensions, // 9
  m.documentMemory, // 9.5: the memory budget, not a spec row
  d.registry, // 10
  d.analysis, // 11
  d.costLimits, // 11.5: cost limits, not a spec row
  ...DOCUMENT_AND_FENCE,
];

/** A subscribe frame on the socket (registry first among the document checks). */
export const SOCKET_STEPS: readonly Step<GraphqlState>[] = [
  r.tenantBudget, // 4
  r.bodyShape, // 7
  r.extensions, // 9
  d.registry, // 10
  d.analysis, // 11
  d.costLimits, // 11.5: cost limits, not a spec row
  ...DOCUMENT_AND_FENCE,
];

/**
 * POST /svc/api/filestorage/upload/...: the same rows where an upload has
 * them (its botID fenced like a GraphQL bot), before any byte is forwarded.
 */
export const UPLOAD_STEPS: readonly Step<GraphqlState>[] = [
  r.gate, // 2
  r.token, // 3
  r.tenantBudget, // 4
  u.accountUpload, // 13: useraccount with the gate on
  u.uploadBot, // 17: exactly one botID
  f.fenceResolvable, // 18
  f.botsBelong, // 19
];
