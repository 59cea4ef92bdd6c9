/**
 * The state one GraphQL request (or one subscribe frame) carries through the
 * check chain. SPEC "Order in which a GraphQL body is checked".
 */
import type { Core } from '../core.ts';
import type { Analysis } from '../graphql/mod.ts';
import type { FenceAnswer } from './bot_fence.ts';
import type { GraphqlBody } from './entries.ts';
import type { Session } from './gate.ts';
import type { SvcRequest } from '../http/request.ts';
import type { RequestState } from '../http/request_state.ts';
import type { ForwardEntry } from '../upstream/forward_graphql.ts';

/** Mutable state of one request through the chain. */
export interface GraphqlState {
  readonly core: Core;
  /** The HTTP request; null for a socket subscribe frame. */
  readonly request: SvcRequest | null;
  /**
   * The HTTP request's state from the door (its memory hold, a body read ahead:
   * src/http/request_state.ts); null for a socket subscribe frame.
   */
  readonly requestState: RequestState | null;
  /** The socket's subscribe payload (socket only). */
  readonly payload?: unknown;
  /** The session admitted at step 2 (the socket's, admitted at connection_init). */
  session: Session | null;
  /** The body text read at step 6 (HTTP only). */
  text?: string;
  body?: GraphqlBody;
  /** Entries to forward, after the registry (10) and analysis (11). */
  forward: ForwardEntry[];
  analyses: Analysis[];
  /**
   * The first entry whose parse stopped at graphqlMaxTokens (step 11; `analyses` holds the
   * entries before it), refused at the cost limits; null when none did.
   */
  tokenLimitAt: number | null;
  /** String bot ids named anywhere in the request (after step 17). */
  bots: Set<string>;
  /** The bots the caller may reach (after step 18); 'any' when there is no fence. */
  fence?: FenceAnswer;
  /** Releases to run once the upstream answered (in-flight counters). */
  releases: Array<() => void>;
}

/** A fresh state: an HTTP request with its `requestState`, or a socket's subscribe `payload`. */
export function newState(
  core: Core,
  request: SvcRequest | null,
  requestState: RequestState | null,
  payload?: unknown,
): GraphqlState {
  return {
    core,
    request,
    requestState,
    payload,
    session: null,
    forward: [],
    analyses: [],
    tokenLimitAt: null,
    bots: new Set(),
    releases: [],
  };
}
