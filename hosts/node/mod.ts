/**
 * `svc-gateway/node`: the Node server host. createSvcServer (health, the proxy, the static
 * build, BASE_PATH), createNodeServer (health and the proxy over a proxy you built), the shared
 * node:http handler and the static handler. SPEC "Startup behaviour and hosts" (Node server).
 */
export { createSvcServer, type SvcServer, type SvcServerOptions } from './svc_server.ts';
export { createNodeServer } from '../node_http/server.ts';
export { createNodeHandler, type NextHandler, type SvcNodeHandler } from '../node_http/handler.ts';
export { CONTENT_TYPES, createStaticHandler, type StaticHandler } from './static.ts';
export { nodeOutbound, proxyAwareFetch, proxyAwarePostText } from '../node_http/outbound.ts';
