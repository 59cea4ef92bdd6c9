/**
 * What every relayed connection shares with the relay (`relay.ts` builds one object, every
 * `Connection` of `connection.ts` reads it), and the connection's admission steps that need no
 * state of the connection: asking the gate, the socket's life under the session's exp, releasing
 * the session.
 *
 * Implements SPEC "Events" 1 (the connection_init payload goes to the gate and no further), the
 * socket life row of "Limits" (min(socketLifeMs, the session's exp), close 1012) and "WebSocket
 * close codes" (a gate that fails is 4401 Unauthorized).
 */
import { CLOSE } from './close_codes.ts';
import type { Counters } from './counters.ts';
import type { JsonObject } from './frames.ts';
import type { RelayLimits } from './limits.ts';
import type { UpstreamFactory } from './socket.ts';
import type { Admission, AdmittedSession, RelayDeps } from './types.ts';
import type { UpstreamLegContext } from './upstream_leg.ts';

/** A connection as the relay holds it (`connection.ts` `Connection`). */
export interface RelayedConnection {
  /** Resolves once both legs reported closed. */
  readonly gone: Promise<void>;
  /** Ends the socket from outside (host shutdown, revocation). */
  end(code: number, reason: string): void;
}

/**
 * The relay-wide things every connection shares; the upstream legs and the flow directions read
 * the same object (one for the whole relay, nothing copied per socket).
 */
export interface ConnectionContext extends UpstreamLegContext {
  deps: RelayDeps;
  openUpstream: UpstreamFactory;
  limits: RelayLimits;
  counters: Counters;
  now(): number;
  log(line: string): void;
  /** The master token if present and well-formed, else null (SPEC "Authentication" 1). */
  token(): string | null;
  /** Called once when the connection finished (its counts are already given back). */
  finished(connection: RelayedConnection): void;
}

/**
 * The gate's verdict on a connection_init payload (`RelayDeps.admit`); a gate that throws is a
 * refusal, 4401 Unauthorized, with one log line. Never rejects.
 */
export async function askGate(
  ctx: ConnectionContext,
  initPayload: JsonObject | null,
): Promise<Admission> {
  try {
    return await ctx.deps.admit(initPayload);
  } catch {
    ctx.log('ws relay: the gate threw on connection_init');
    return { ok: false, closeCode: CLOSE.unauthorized.code, reason: CLOSE.unauthorized.reason };
  }
}

/**
 * The socket's life under the session's exp (socket life = min(socketLifeMs from accept, exp)):
 * null when the session sets no earlier end, else the ms left (0 or less: already past).
 */
export function lifeUnderSession(
  ctx: ConnectionContext,
  expiresAt: number | undefined,
  acceptedAt: number,
): number | null {
  if (expiresAt === undefined || !Number.isFinite(expiresAt)) return null;
  const now = ctx.now();
  const left = expiresAt - now;
  if (left <= 0) return left;
  return left < acceptedAt + ctx.limits.socketLifeMs - now ? left : null;
}

/** Releases an admitted session (a release that throws is logged, never thrown). */
export function releaseSession(ctx: ConnectionContext, session: AdmittedSession | null): void {
  try {
    session?.release?.();
  } catch {
    ctx.log('ws relay: releasing the session failed');
  }
}
