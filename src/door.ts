/**
 * The door every HTTP request enters the core by, whichever host and entry (`SvcProxy.serve`,
 * `SvcProxy.handle`): the request's state is created here (its memory hold, the body the
 * host read ahead: src/http/request_state.ts), the checks before any route run around the route
 * (src/routes/caller_checks.ts), the answer is counted and logged (docs/operations.md "Metrics",
 * "Logs"), and what the request held is released however it ended. One door, so the common path
 * and the plain path cannot drift apart.
 */
import type { Core } from './core.ts';
import { isPlainAnswer, knownText, type PlainAnswer, type Routed } from './http/answer.ts';
import { type CallerChecks, checked } from './routes/caller_checks.ts';
import type { ConnInfo, SvcRequest } from './http/request.ts';
import { RequestState } from './http/request_state.ts';
import { envelopeCode } from './observability/log.ts';
import { routeOf } from './observability/route_names.ts';

/** A route as the door calls it: the request's state, and the CORS headers of its caller. */
export type DoorRoute<T extends Routed> = (
  state: RequestState,
  cors: Record<string, string>,
) => T | Promise<T>;

/** Enters `request` (a claimed `path`) through the door and answers it by `route`. */
export type Door = <T extends Routed>(
  request: SvcRequest,
  path: string,
  conn: ConnInfo | undefined,
  route: DoorRoute<T>,
) => Promise<T | PlainAnswer>;

/** The door of `core`. */
export function createDoor(core: Core, checks: CallerChecks): Door {
  const { config, logger } = core;
  /** A claimed path's answer with its metrics and access line. */
  const observed = async <T extends Routed>(path: string, answer: () => Promise<T>) => {
    const started = logger.accessLines ? performance.now() : 0;
    const result = await answer();
    core.metrics?.request(routeOf(config, path), result.status);
    if (logger.accessLines) {
      logger.access({
        route: routeOf(config, path),
        status: result.status,
        code: envelopeCode(isPlainAnswer(result) ? result.body ?? undefined : knownText(result)),
        durationMs: performance.now() - started,
        requestId: crypto.randomUUID(),
      });
    }
    return result;
  };
  return async (request, path, conn, route) => {
    const state = new RequestState(core.memory, conn?.readAhead ?? null);
    try {
      return await observed(
        path,
        () => checked(checks, request, path, (cors) => route(state, cors)),
      );
    } finally {
      state.release();
    }
  };
}
