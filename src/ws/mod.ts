/**
 * The graphql-transport-ws relay (SPEC "Route table" WS row, "Events", "WebSocket close
 * codes", socket rows of "Limits"): the public surface of `src/ws/`.
 */
export { createRelay, readToken } from './relay.ts';
export type {
  Admission,
  AdmittedSession,
  Relay,
  RelayDeps,
  RelayStats,
  ResultLike,
  SubscribeVerdict,
} from './types.ts';
export {
  adaptWebSocket,
  openWebSocketUpstream,
  RELAY_SUBPROTOCOL,
  type RelaySocket,
  type SocketListener,
  type UpstreamFactory,
  type UpstreamOpenOptions,
  type UpstreamSocket,
} from './socket.ts';
export {
  adaptWsSocket,
  createWsUpstream,
  openWsUpstream,
  type WsUpstreamOptions,
} from './ws_socket.ts';
export { offersRelaySubprotocol } from './upgrade.ts';
export {
  minimumBufferCap,
  RELAY_OPTION_DEFAULTS,
  type RelayLimits,
  relayLimits,
  type RelayOptions,
  SOCKET_LIMITS,
  type SocketLimits,
} from './limits.ts';
export {
  CLOSE,
  CLOSE_REASON_MAX_BYTES,
  type CloseRow,
  passesThrough,
  safeCloseReason,
} from './close_codes.ts';
export type { SubscribeEntry } from './frames.ts';
