/**
 * The WebSocket upgrade decision on the relay path, before any socket exists (SPEC "Checks before
 * any route" 1-2 for the handshake, "WebSocket relay": the graphql-transport-ws subprotocol, the
 * socket ceilings). Reads the URL and the Host, Origin and Sec-WebSocket-Protocol headers only.
 */
import type { ResolvedConfig } from '../config/resolved.ts';
import { checkHost, checkOrigin } from '../http/host_origin.ts';
import type { SvcRequest } from '../http/request.ts';
import type { PlainAnswer } from '../http/answer.ts';
import { plainAnswer } from '../http/responses.ts';
import { noteRefusedCaller, type RefusedValueLog } from '../observability/refused_values.ts';
import { offersRelaySubprotocol, type Relay, RELAY_SUBPROTOCOL } from '../ws/mod.ts';

/** The core's answer to an upgrade request. */
export type UpgradeDecision =
  | { kind: 'unclaimed' }
  | { kind: 'refuse'; answer: PlainAnswer }
  | { kind: 'accept'; protocol: string };

/**
 * Unclaimed off `config.wsPath`; 403 for a refused Host or Origin (its value logged, bounded:
 * src/observability/refused_values.ts) or a handshake without the relay's subprotocol; 503 (with
 * retry-after when the relay gives one) when the relay is full; else accept with the subprotocol.
 */
export function decideUpgrade(
  config: ResolvedConfig,
  relay: Relay,
  refusedValues: RefusedValueLog,
  request: SvcRequest,
): UpgradeDecision {
  const path = new URL(request.url).pathname;
  if (path !== config.wsPath) return { kind: 'unclaimed' };
  const callerRefused = checkHost(config, request) ?? checkOrigin(config, request);
  if (callerRefused) {
    noteRefusedCaller(refusedValues, callerRefused.code, request, false);
    return { kind: 'refuse', answer: plainAnswer(403, 'Forbidden') };
  }
  if (!offersRelaySubprotocol(request.headers.get('sec-websocket-protocol'))) {
    return { kind: 'refuse', answer: plainAnswer(403, 'Forbidden') };
  }
  const full = relay.admitUpgrade();
  if (full) {
    const retry = full.retryAfterSeconds
      ? { 'retry-after': String(full.retryAfterSeconds) }
      : undefined;
    return { kind: 'refuse', answer: plainAnswer(503, 'Service Unavailable', retry) };
  }
  return { kind: 'accept', protocol: RELAY_SUBPROTOCOL };
}
