/**
 * Executing GraphQL entries against the upstream schema with the sandbox's resolvers, for the
 * HTTP route (one entry per call) and the socket (execution arguments for graphql-ws).
 */
import {
  execute,
  type ExecutionArgs,
  type ExecutionResult,
  getOperationAST,
  GraphQLError,
} from 'graphql';
import type { ExecContext } from './mocks.ts';
import { typeResolver } from './mocks.ts';
import { fieldResolver, subscribeFieldResolver } from './resolvers.ts';
import { prepare, upstreamSchema } from './schema.ts';

/** An HTTP answer for one entry: status and the JSON-ready body. */
export interface EntryOutcome {
  status: number;
  body: unknown;
}

/** A GraphQL request entry as the sandbox reads it (anything else is refused with 400). */
interface Entry {
  query: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
}

function isEntry(value: unknown): value is Entry {
  return typeof value === 'object' && value !== null &&
    typeof (value as { query?: unknown }).query === 'string';
}

function refusal(message: string, code: string): EntryOutcome {
  return { status: 400, body: { errors: [{ message, extensions: { code } }] } };
}

/** JSON-ready form of an execution result (errors through GraphQLError.toJSON). */
export function plainResult(result: ExecutionResult): unknown {
  return JSON.parse(JSON.stringify(result));
}

/**
 * Runs one HTTP entry. 400 with `extensions.code` BAD_REQUEST (no query string),
 * GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED, or OPERATION_RESOLUTION_FAILURE (no such
 * operation, or a subscription: those are served on the socket only); else 200 with the result.
 */
export async function runEntry(entry: unknown, ctx: ExecContext): Promise<EntryOutcome> {
  if (!isEntry(entry)) return refusal('Must provide query string.', 'BAD_REQUEST');
  const ready = prepare(entry.query);
  if (!ready.ok) {
    const code = ready.stage === 'parse' ? 'GRAPHQL_PARSE_FAILED' : 'GRAPHQL_VALIDATION_FAILED';
    const errors = ready.errors.map((e) => ({ ...e.toJSON(), extensions: { code } }));
    return { status: 400, body: { errors } };
  }
  const operation = getOperationAST(ready.document, entry.operationName ?? undefined);
  if (!operation || operation.operation === 'subscription') {
    const what = operation ? 'Subscriptions are served over WebSocket only' : 'Unknown operation';
    return refusal(what, 'OPERATION_RESOLUTION_FAILURE');
  }
  const result = await execute({
    schema: upstreamSchema(),
    document: ready.document,
    operationName: entry.operationName ?? undefined,
    variableValues: entry.variables ?? undefined,
    contextValue: ctx,
    fieldResolver,
    typeResolver,
  });
  return { status: 200, body: plainResult(result) };
}

/**
 * Execution arguments for a socket subscribe payload, or the errors for an `error` frame
 * (unparsable or invalid document, no query string).
 */
export function socketExecutionArgs(
  payload: { query?: unknown; operationName?: unknown; variables?: unknown },
  ctx: ExecContext,
): ExecutionArgs | GraphQLError[] {
  if (typeof payload.query !== 'string') return [new GraphQLError('Must provide query string.')];
  const ready = prepare(payload.query);
  if (!ready.ok) return [...ready.errors];
  return {
    schema: upstreamSchema(),
    document: ready.document,
    operationName: typeof payload.operationName === 'string' ? payload.operationName : undefined,
    variableValues: (payload.variables as Record<string, unknown> | null) ?? undefined,
    contextValue: ctx,
    fieldResolver,
    subscribeFieldResolver,
    typeResolver,
  };
}
