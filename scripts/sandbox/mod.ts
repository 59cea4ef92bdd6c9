/**
 * The sandbox upstream: a local stand-in for the bot platform's API, for tests, the demo and the
 * benchmark. One node:http server answers `POST /graphql` (real graphql-js execution over
 * `data/upstream/schema.graphql`), the REST upload paths, and WebSocket `/graphql`
 * (graphql-transport-ws via graphql-ws's `makeServer`). See README.md beside this file. The
 * server itself is server.ts; this module is the API.
 */
export { type Sandbox, SANDBOX_TOKEN, type SandboxOptions, startSandbox } from './server.ts';
export type {
  ReceivedOperation,
  ReceivedRequest,
  ReceivedSocket,
  ReceivedSubscribe,
  ReceivedUpload,
} from './record.ts';
export type {
  CloseNext,
  DelayRule,
  DropRule,
  ErrorsRule,
  Match,
  SandboxSwitches,
  SocketSwitches,
  StatusRule,
  StreamSettings,
  UpstreamError,
} from './switches.ts';
export { defaultSwitches, subgraphFailure, subgraphSentence, upstreamError } from './switches.ts';
export type { World, WorldBot, WorldUser, WorldWorkspace } from './world.ts';
export { WORLD_IDS } from './world.ts';
export { UPLOAD_KINDS } from './uploads.ts';
export { type AppOperation, appOperations } from './operations.ts';
