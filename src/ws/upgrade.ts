/**
 * Which upgrades the relay accepts: SPEC "Route table" (WS row: "Subprotocol graphql-transport-ws
 * only"). The core's upgrade (src/routes/upgrade.ts) asks it after the host and origin checks.
 */
import { RELAY_SUBPROTOCOL } from './socket.ts';

/**
 * True when a `Sec-WebSocket-Protocol` header value offers graphql-transport-ws (a
 * comma-separated token list; case-sensitive, as RFC 6455 tokens are).
 */
export function offersRelaySubprotocol(header: string | null | undefined): boolean {
  if (!header) return false;
  return header.split(',').some((token) => token.trim() === RELAY_SUBPROTOCOL);
}
