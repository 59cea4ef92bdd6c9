/**
 * Which upgrades the relay claims.
 *
 * Implements SPEC "Route table" (WS row: "Subprotocol graphql-transport-ws only ... An upgrade
 * on another path is ignored (unclaimed)") as two small predicates both hosts share. Host and
 * origin checks (403 before any socket exists) belong to the HTTP core and run before these.
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

/** True when an `Upgrade` header value asks for a WebSocket. */
export function isWebSocketUpgrade(header: string | null | undefined): boolean {
  return !!header && header.split(',').some((t) => t.trim().toLowerCase() === 'websocket');
}

/**
 * The host's decision for one upgrade request: 'unclaimed' (another path or not a WebSocket
 * upgrade: leave it to whoever else listens), 'refuse' (the relay path without
 * graphql-transport-ws: answer plain HTTP 400), or 'relay'.
 */
export function classifyUpgrade(
  pathname: string,
  wsPath: string,
  upgradeHeader: string | null | undefined,
  protocolHeader: string | null | undefined,
): 'unclaimed' | 'refuse' | 'relay' {
  if (pathname !== wsPath || !isWebSocketUpgrade(upgradeHeader)) return 'unclaimed';
  return offersRelaySubprotocol(protocolHeader) ? 'relay' : 'refuse';
}
