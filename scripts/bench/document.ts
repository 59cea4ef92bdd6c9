/**
 * The document every bench scenario sends: a small real app query (data/upstream/operations)
 * that names a bot (the `botID` variable: bot fence) and a resource (`flowID`: resource fence),
 * so the checks scenario exercises both fences and the registry matches it exactly.
 */
import { appOperations, WORLD_IDS } from '../sandbox/mod.ts';

/** The app operation the bench sends. */
export const BENCH_OPERATION = 'FlowTestSessionReadback';

/** The bench request: its operation name and POST body (the app's own text, sample variables). */
export function benchRequest(): { operationName: string; body: string } {
  const op = appOperations().find((o) => o.name === BENCH_OPERATION);
  if (!op) throw new Error(`no app operation named ${BENCH_OPERATION}`);
  const body = JSON.stringify({
    query: op.query,
    operationName: op.name,
    variables: op.variables(WORLD_IDS.bot1),
  });
  return { operationName: op.name, body };
}
